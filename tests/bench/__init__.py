"""Tests of the benchmark's own parts (bench/)."""
