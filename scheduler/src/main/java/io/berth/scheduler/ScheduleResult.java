package io.berth.scheduler;

/**
 * The outcome of the scheduling algorithm for one pod: the chosen node, how many nodes were
 * evaluated and how many were feasible. Immutable.
 */
public record ScheduleResult(String suggestedHost, int evaluatedNodes, int feasibleNodes) {}
