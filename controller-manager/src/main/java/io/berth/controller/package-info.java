/**
 * The controller manager: the contracts every controller implements ({@link io.berth.controller.Controller},
 * {@link io.berth.controller.ControllerFactory}, {@link io.berth.controller.ControllerContext},
 * {@link io.berth.controller.EventRecorder}), the reconcile metrics they report
 * ({@link io.berth.controller.ControllerMetrics}), and the {@code berth-controller-manager} daemon
 * ({@link io.berth.controller.ControllerManagerMain}, {@link io.berth.controller.ControllerManager},
 * {@link io.berth.controller.ControllerRegistry}). The controllers themselves live in sub-packages.
 */
package io.berth.controller;
