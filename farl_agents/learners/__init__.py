"""The FARL learners (TD, SARSA, Q) on n-tuple networks."""
