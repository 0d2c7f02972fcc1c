package io.berth.plugins.noderesources;

/**
 * One resource a node lacks for a pod, as upstream's {@code noderesources.InsufficientResource}:
 * the failure reason ("Insufficient cpu"), the pod's request, what the node's pods already use and
 * the node's allocatable amount. Immutable.
 */
record InsufficientResource(String resourceName, String reason, long requested, long used,
    long capacity) {}
