package io.berth.informer;

/** One notification queued for one handler. Immutable. */
sealed interface Notification<T> {

  record Add<T>(T obj, boolean isInInitialList) implements Notification<T> {}

  record Update<T>(T oldObj, T newObj) implements Notification<T> {}

  record Delete<T>(T obj, boolean finalStateUnknown) implements Notification<T> {}
}
