"""n-tuple networks: tables, symmetry, eligibility with horizon, TCL, and the tuple sets."""
