/**
 * What both Berth daemons share: the common flags ({@link io.berth.component.DaemonOptions}), client configuration
 * and the client-side rate limit ({@link io.berth.component.ClientConfigResolver},
 * {@link io.berth.component.KubeClients}), leader election over a Lease ({@link io.berth.component.LeaderElection}),
 * the {@code /healthz} {@code /readyz} {@code /metrics} endpoint ({@link io.berth.component.DaemonEndpoint}), and the
 * lifecycle with graceful shutdown and exit statuses ({@link io.berth.component.Daemon},
 * {@link io.berth.component.Exiter}).
 */
package io.berth.component;
