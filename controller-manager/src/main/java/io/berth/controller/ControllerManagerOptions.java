package io.berth.controller;

import io.berth.component.ConfigurationException;
import io.berth.component.DaemonSettings;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The flags of the controller manager beyond the shared daemon ones, as a picocli mixin, with
 * kube-controller-manager's names and defaults: {@code --controllers} ({@link ControllerSelection}),
 * {@code --concurrent-deployment-syncs} and {@code --concurrent-replicaset-syncs} (5 each). Mutable while picocli
 * parses, then read once; confined to the parsing thread.
 */
public final class ControllerManagerOptions {

  public static final String CONCURRENT_DEPLOYMENT_SYNCS = "--concurrent-deployment-syncs";
  public static final String CONCURRENT_REPLICASET_SYNCS = "--concurrent-replicaset-syncs";

  /** The registry names the two concurrency flags apply to. */
  public static final String DEPLOYMENT = "deployment";
  public static final String REPLICASET = "replicaset";

  @Option(names = ControllerSelection.FLAG, paramLabel = "LIST",
      description = "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the"
          + " controller named 'foo', '-foo' disables the controller named 'foo'. All known controllers: deployment,"
          + " podgroup, replicaset, resource-claim-controller. Disabled-by-default controllers: podgroup."
          + " Default: ${DEFAULT-VALUE}.")
  private String controllers = ControllerSelection.ALL;

  @Option(names = CONCURRENT_DEPLOYMENT_SYNCS, paramLabel = "N",
      description = "The number of deployment objects that are allowed to sync concurrently (workers)."
          + " Default: ${DEFAULT-VALUE}.")
  private int deploymentSyncs = ControllerManagerSettings.DEFAULT_CONCURRENT_SYNCS;

  @Option(names = CONCURRENT_REPLICASET_SYNCS, paramLabel = "N",
      description = "The number of replica sets that are allowed to sync concurrently (workers)."
          + " Default: ${DEFAULT-VALUE}.")
  private int replicaSetSyncs = ControllerManagerSettings.DEFAULT_CONCURRENT_SYNCS;

  /**
   * The parsed flags as settings.
   *
   * @throws ConfigurationException naming the flag whose value cannot be used
   */
  public ControllerManagerSettings settings(DaemonSettings daemon, ControllerRegistry registry) {
    atLeastOne(deploymentSyncs, CONCURRENT_DEPLOYMENT_SYNCS);
    atLeastOne(replicaSetSyncs, CONCURRENT_REPLICASET_SYNCS);
    return new ControllerManagerSettings(daemon, ControllerSelection.parse(controllers).enabled(registry),
        Map.of(DEPLOYMENT, deploymentSyncs, REPLICASET, replicaSetSyncs,
            io.berth.controller.resourceclaim.ResourceClaimController.NAME,
            io.berth.controller.resourceclaim.ResourceClaimController.DEFAULT_CONCURRENT_SYNCS));
  }

  private static void atLeastOne(int value, String flag) {
    if (value < 1) {
      throw new ConfigurationException(flag, flag + " must be at least 1, got " + value);
    }
  }
}
