package io.berth.controller;

/** Creates the {@link EventRecorder} of one component ({@code replicaset-controller}). Thread-safe. */
@FunctionalInterface
public interface EventRecorderFactory {

  EventRecorder forComponent(String component);
}
