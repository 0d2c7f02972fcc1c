package io.berth.framework.runtime;

import io.berth.framework.Code;
import io.berth.framework.Plugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.function.Supplier;

/**
 * How the runtime calls a plugin and reports what went wrong, as upstream words it: a plugin that
 * throws becomes an Error status naming the plugin and extension point, and an Error (or a code
 * the extension point does not accept) is wrapped with the context it happened in. Stateless.
 */
final class PluginCalls {
  private PluginCalls() {}

  static Status safely(Supplier<Status> call, Plugin pl, String point) {
    try {
      Status s = call.get();
      return s == null ? Status.SUCCESS : s;
    } catch (StatusException e) {
      return e.status();
    } catch (RuntimeException e) {
      return errorOf(e, pl, point);
    }
  }

  static Status errorOf(RuntimeException e, Plugin pl, String point) {
    if (e instanceof StatusException se) {
      return se.status();
    }
    return Status.asError(new IllegalStateException(point + " of plugin " + pl.name()
        + " failed: " + e, e)).withPlugin(pl.name());
  }

  static Status wrapError(Status s, String context, String plugin) {
    if (s.code() != Code.ERROR) {
      // a code this point does not accept (e.g. Wait from PreBind) is an error too
      return Status.error(context + ": " + s).withPlugin(plugin);
    }
    return Status.error(context + ": " + s.message()).withPlugin(plugin);
  }

  static String podKey(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
