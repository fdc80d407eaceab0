"""Gatehouse's composition root: settings, wiring of the services, and the command line."""
