"""Game-independent machinery: the kernel contract, the AEC env, the afterstate record, RNG, rendering."""
