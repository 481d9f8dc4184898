"""GBG's stored Sim, Yavalath and EWN n-tuple agents loaded into farl and measured in farl's harness (issue 41).

Command: ``python -m studies.gbg_agents.gbg_agents --gbg GBG_CHECKOUT --stage export,import,measure --publish``.
Page: ``docs/results/gbg_agents.md`` (linked from ``nplayer_learning.md``), figures in
``docs/results/gbg_agents.json``.
"""
