/**
 * Client-go style informers over fabric8 list and watch.
 *
 * <p>Data flow: a {@link io.berth.informer.Reflector} lists and watches the API server through a
 * {@link io.berth.informer.ListerWatcher} and feeds a {@link io.berth.informer.DeltaFIFO}; a
 * {@link io.berth.informer.SharedIndexInformer} pops the per-key delta lists, applies them to its
 * {@link io.berth.informer.Indexer} (the cache every {@link io.berth.informer.Lister} reads) and
 * hands notifications to each registered {@link io.berth.informer.ResourceEventHandler} through
 * that handler's own unbounded buffer. fabric8 is used only for the list and watch calls
 * ({@link io.berth.informer.Fabric8ListerWatcher}); its own informer is not used.
 *
 * <p>Objects handed out by this package (from stores, listers and handlers) are shared: never
 * mutate them, copy first.
 */
package io.berth.informer;
