"""AlphaZero against n-tuple TD-FARL at equal CPU time (issue 44): the contest and its outside reference,
OpenSpiel's AlphaZero."""
