package io.berth.controller;

/**
 * Creates a controller against a {@link ControllerContext}, registering the informers and handlers it needs. Called
 * once per daemon start, before the informers start; stateless.
 */
@FunctionalInterface
public interface ControllerFactory {

  Controller create(ControllerContext context);
}
