package io.berth.framework;

/** A preferred (anti-)affinity term with its weight (1–100). Immutable. */
public record WeightedAffinityTerm(AffinityTerm term, int weight) {}
