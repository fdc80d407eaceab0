"""Tests of the capability-selection benchmark (eval/): its cases file and its scoring."""
