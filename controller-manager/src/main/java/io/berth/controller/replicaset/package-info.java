/**
 * kube-controller-manager's {@code replicaset} controller: {@link io.berth.controller.replicaset.ReplicaSetController}
 * and its {@link io.berth.controller.replicaset.ReplicaSetControllerFactory}. The sync, the informer handlers, the
 * status arithmetic and the input checks are package-private, one file each.
 */
package io.berth.controller.replicaset;
