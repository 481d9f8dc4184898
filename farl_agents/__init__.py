"""farl_agents: n-tuple FARL learners, reference opponents and evaluation."""
