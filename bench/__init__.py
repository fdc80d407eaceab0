"""The benchmark (`make bench`): figures beside their targets, a report, a failing exit on a miss."""
