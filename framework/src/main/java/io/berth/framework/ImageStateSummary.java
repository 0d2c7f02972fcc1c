package io.berth.framework;

/**
 * An image present on a node: its size in bytes and on how many nodes of the cluster it is.
 * Immutable.
 */
public record ImageStateSummary(long size, int numNodes) {}
