"""The agents agentout reaches: one module per agent CLI (its hook protocol, its
permission rules, the files ``agentout init`` writes)."""
