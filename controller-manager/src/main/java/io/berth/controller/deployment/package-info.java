/**
 * The decisions and arithmetic of the Deployment controller (kube-controller-manager v1.32 parity) as pure,
 * stateless functions over fabric8 model objects. Nothing here reads a lister, writes the API server, records
 * an event or reads a clock: callers pass "now" and receive plans ({@link
 * io.berth.controller.deployment.ReplicaSetScale}, objects to create or update, statuses to write).
 *
 * <p>One sync of a Deployment, in upstream syncDeployment's order:
 * <ol>
 *   <li>{@link io.berth.controller.deployment.DeploymentValidation#validate} (Berth's guard against what a mock
 *   server accepts) and {@link io.berth.controller.deployment.SyncPlan#decide} for the branch;</li>
 *   <li>{@link io.berth.controller.deployment.ReplicaSetClassifier} splits the owned ReplicaSets into new and
 *   old; {@link io.berth.controller.deployment.NewReplicaSets} syncs the revision of an existing new
 *   ReplicaSet or builds the one to create;</li>
 *   <li>{@link io.berth.controller.deployment.DeploymentProgress#checkPausedConditions}, then
 *   {@link io.berth.controller.deployment.SyncPlan#sync} (paused / scaling event),
 *   {@link io.berth.controller.deployment.RecreateRollout#plan} or
 *   {@link io.berth.controller.deployment.RollingRollout#plan};</li>
 *   <li>apply the returned scales in order ({@link io.berth.controller.deployment.ReplicaSetScale#applyTo},
 *   event {@link io.berth.controller.deployment.ReplicaSetScale#eventMessage}), delete history
 *   ({@link io.berth.controller.deployment.HistoryCleanup});</li>
 *   <li>write the status from {@link io.berth.controller.deployment.DeploymentProgress#syncRolloutStatus}
 *   (rollouts) or {@link io.berth.controller.deployment.DeploymentStatusCalculator#syncDeploymentStatus}
 *   (status-only and sync paths) and requeue per its {@link io.berth.controller.deployment.ProgressRecheck}.</li>
 * </ol>
 */
package io.berth.controller.deployment;
