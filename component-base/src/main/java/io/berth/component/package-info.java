/**
 * What both Berth daemons share: the common flags ({@link io.berth.component.DaemonOptions}), client configuration
 * and the client-side rate limit ({@link io.berth.component.ClientConfigResolver},
 * {@link io.berth.component.KubeClients}), leader election over a Lease ({@link io.berth.component.LeaderElection}),
 * the {@code /healthz} {@code /livez} {@code /readyz} {@code /metrics} endpoints on one route table
 * ({@link io.berth.component.EndpointRoutes}, {@link io.berth.component.DaemonEndpoint}), secure serving with
 * delegated authentication and authorization ({@link io.berth.component.SecureServingOptions},
 * {@link io.berth.component.SecureEndpoint}, {@link io.berth.component.DelegatingAuthenticator},
 * {@link io.berth.component.DelegatingAuthorizer}), and the lifecycle with graceful shutdown and exit statuses
 * ({@link io.berth.component.Daemon}, {@link io.berth.component.Exiter}).
 */
package io.berth.component;
