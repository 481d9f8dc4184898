"""Rubik's cube studies: solve rates of farl's agents by scramble depth, beside GBG's published ones."""
