package io.berth.controller;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Maps controller names ({@code replicaset}, {@code deployment}) to their {@link ControllerFactory}, as
 * kube-controller-manager's {@code NewControllerDescriptors}. {@code --controllers} is validated against it and
 * {@code *} means every registered controller that is on by default; a controller registered with
 * {@link #registerDisabledByDefault} (upstream's {@code ControllersDisabledByDefault}, as for controllers of alpha
 * APIs) runs only when {@code --controllers} names it. {@link #builtIn()} is the one place that lists what Berth
 * ships.
 *
 * <p>Thread-safe: the factory map and the disabled-by-default set are guarded by {@code this}.
 */
public final class ControllerRegistry {

  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");

  // guarded by this
  private final Map<String, ControllerFactory> factories = new TreeMap<>();
  // guarded by this
  private final SortedSet<String> disabledByDefault = new TreeSet<>();

  /**
   * The controllers of the {@code berth-controller-manager} binary. Register new controllers here, for example
   * {@code .register("replicaset", ReplicaSetController::create)}.
   */
  public static ControllerRegistry builtIn() {
    return new ControllerRegistry()
        .register(io.berth.controller.replicaset.ReplicaSetController.NAME,
            new io.berth.controller.replicaset.ReplicaSetControllerFactory())
        .register(io.berth.controller.deployment.DeploymentController.NAME,
            io.berth.controller.deployment.DeploymentController::create)
        .register(io.berth.controller.resourceclaim.ResourceClaimController.NAME,
            io.berth.controller.resourceclaim.ResourceClaimController::create)
        .registerDisabledByDefault(io.berth.controller.podgroup.PodGroupController.NAME,
            io.berth.controller.podgroup.PodGroupController::create);
  }

  /**
   * Registers {@code factory} under {@code name}.
   *
   * @return this
   * @throws IllegalArgumentException if the name is not a lower-case DNS label or is already registered
   */
  public synchronized ControllerRegistry register(String name, ControllerFactory factory) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(factory, "factory");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("controller name \"" + name + "\" is not a lower-case DNS label");
    }
    if (factories.putIfAbsent(name, factory) != null) {
      throw new IllegalArgumentException("controller \"" + name + "\" is already registered");
    }
    return this;
  }

  /**
   * Registers {@code factory} under {@code name}, left out of {@code *}: it runs only when {@code --controllers}
   * names it.
   *
   * @return this
   * @throws IllegalArgumentException as {@link #register}
   */
  public synchronized ControllerRegistry registerDisabledByDefault(String name, ControllerFactory factory) {
    register(name, factory);
    disabledByDefault.add(name);
    return this;
  }

  /** The names {@code *} leaves out, sorted. */
  public synchronized SortedSet<String> disabledByDefault() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(disabledByDefault));
  }

  /** The registered names, sorted. */
  public synchronized SortedSet<String> names() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(factories.keySet()));
  }

  /** The factory registered under {@code name}. */
  public synchronized Optional<ControllerFactory> factory(String name) {
    return Optional.ofNullable(factories.get(name));
  }
}
