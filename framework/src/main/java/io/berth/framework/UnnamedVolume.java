package io.berth.framework;

import io.fabric8.kubernetes.api.model.Volume;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A pod's volume as the volumes signer compares it: equal to another when every property of the two {@link Volume}s
 * but the name is equal (each source compared deeply, with the model's own {@code equals}), as upstream signs a
 * volume's source and not its name. It wraps the pod's own Volume, which it neither copies nor changes: signing runs
 * once per scheduling attempt, and a deep copy through fabric8's builders (the projected service-account volume every
 * pod carries has a dozen nested objects) cost a quarter of the scheduling thread's time. The properties are the
 * Volume's public getters, found once: a property fabric8 adds is compared without a change here. Immutable (the
 * pods the scheduler holds are never mutated); the hash is computed once; thread-safe.
 */
public final class UnnamedVolume {
  // every public no-argument getter of Volume but getName (and getClass), in name order
  private static final List<MethodHandle> PROPERTIES = properties();

  private final Volume volume;
  private final int hash;

  private UnnamedVolume(Volume volume) {
    this.volume = volume;
    int h = 1;
    for (MethodHandle p : PROPERTIES) {
      h = 31 * h + Objects.hashCode(get(p, volume));
    }
    this.hash = h;
  }

  /** The signer's view of {@code volume}. */
  public static UnnamedVolume of(Volume volume) {
    return new UnnamedVolume(Objects.requireNonNull(volume, "volume"));
  }

  /** The pod's volume itself (with its name); must not be mutated. */
  public Volume volume() {
    return volume;
  }

  /** How many properties are compared (every public getter of {@link Volume} but its name). */
  static int propertyCount() {
    return PROPERTIES.size();
  }

  private static List<MethodHandle> properties() {
    List<Method> getters = new ArrayList<>();
    for (Method m : Volume.class.getMethods()) {
      if (m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers()) && m.getName().startsWith("get")
          && !m.getName().equals("getName") && !m.getName().equals("getClass")) {
        getters.add(m);
      }
    }
    getters.sort(Comparator.comparing(Method::getName));
    List<MethodHandle> handles = new ArrayList<>(getters.size());
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    for (Method m : getters) {
      try {
        handles.add(lookup.unreflect(m));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot read Volume." + m.getName() + " for pod signatures", e);
      }
    }
    return List.copyOf(handles);
  }

  private static Object get(MethodHandle property, Volume v) {
    try {
      return property.invoke(v);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("reading a Volume property for a pod signature failed", t);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof UnnamedVolume other) || other.hash != hash) {
      return false;
    }
    for (MethodHandle p : PROPERTIES) {
      if (!Objects.equals(get(p, volume), get(p, other.volume))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "UnnamedVolume" + volume;
  }
}
