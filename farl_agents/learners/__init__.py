"""The FARL learners (TD, SARSA, Q) on n-tuple networks.

>>> from farl_agents.learners import NTupleAgent, paper_config
>>> agent = NTupleAgent("tictactoe", paper_config("tictactoe"))
"""
from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.config import LearnerConfig
from farl_agents.learners.presets import paper_config, paper_game_params, preset_names

__all__ = ["NTupleAgent", "LearnerConfig", "paper_config", "paper_game_params", "preset_names"]
