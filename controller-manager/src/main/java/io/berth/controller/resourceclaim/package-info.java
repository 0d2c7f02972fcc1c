/**
 * kube-controller-manager's {@code resource-claim-controller}: ResourceClaims generated from the templates pods
 * name, the pods' {@code status.resourceClaimStatuses}, and the release of claims pods no longer use.
 */
package io.berth.controller.resourceclaim;
