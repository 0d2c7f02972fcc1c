package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims the objects a controller owns through ControllerRefs (upstream's {@code BaseControllerRefManager} with its
 * {@code PodControllerRefManager} and {@code ReplicaSetControllerRefManager} specialisations, generic over the owned
 * type: pods for a ReplicaSet, ReplicaSets for a Deployment). For each candidate, {@link #decide} says what to do:
 * <ul>
 *   <li>controlled by someone else: ignore it;
 *   <li>controlled by us and matching the selector (and filter): it is ours, even while we are being deleted;
 *   <li>controlled by us but no longer matching: release it (patch our ownerReference away) unless we are being
 *       deleted;
 *   <li>an orphan that matches, is not terminating, in our namespace, while we are not being deleted: adopt it
 *       (patch a controller ownerReference in), after a once-per-manager check that we may adopt at all.
 * </ul>
 * The adoption check is typically {@link #recheckOwner}: a live GET (never the cache) that the owner still exists
 * with the same UID and is not being deleted (upstream's {@code RecheckDeletionTimestamp}, issue #42639).
 *
 * <p>Create one manager per sync: the adoption check runs at most once per instance. Not thread-safe beyond that
 * check (guarded by {@code this}); one sync thread uses an instance.
 *
 * @param <T> the owned type
 */
public final class ControllerRefManager<T extends HasMetadata> {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerRefManager.class);

  /** Writes a strategic merge patch to one owned object; throws the API error on failure. */
  @FunctionalInterface
  public interface Patcher {
    void patch(String namespace, String name, String strategicMergePatch);
  }

  /** Says whether the controller may adopt now; throws with the reason when it may not. */
  @FunctionalInterface
  public interface CanAdopt {
    void check() throws Exception;
  }

  /** What a claim does with one object. */
  public enum Decision {
    /** Already ours and still matching: claimed, nothing to write. */
    OWNED,
    /** Ours but no longer matching: release it; not claimed. */
    RELEASE,
    /** A matching orphan: adopt it; claimed once the patch succeeds. */
    ADOPT,
    /** Someone else's, or not to be touched now: not claimed, nothing to write. */
    IGNORE
  }

  /**
   * The outcome of a claim. Immutable.
   *
   * @param objects the objects now owned, in input order
   * @param errors the failed adoptions and releases (404s are not errors)
   */
  public record Claimed<T>(List<T> objects, List<Exception> errors) {
    public Claimed {
      objects = List.copyOf(objects);
      errors = List.copyOf(errors);
    }

    /** The owned objects, or a {@link ClaimException} aggregating the errors if any write failed. */
    public List<T> orThrow() throws ClaimException {
      if (!errors.isEmpty()) {
        throw new ClaimException(errors);
      }
      return objects;
    }
  }

  /** Some adoptions or releases failed; the message lists them as Go's error aggregates do. */
  public static final class ClaimException extends Exception {
    private static final long serialVersionUID = 1L;

    public ClaimException(List<Exception> errors) {
      super(aggregate(errors), errors.get(0));
      for (int i = 1; i < errors.size(); i++) {
        addSuppressed(errors.get(i));
      }
    }

    private static String aggregate(List<Exception> errors) {
      if (errors.size() == 1) {
        return KubeApiErrors.message(errors.get(0));
      }
      List<String> messages = new ArrayList<>();
      for (Exception e : errors) {
        messages.add(KubeApiErrors.message(e));
      }
      return "[" + String.join(", ", messages) + "]";
    }
  }

  private final HasMetadata controller;
  private final GroupVersionKind controllerKind;
  private final Selector selector;
  private final Patcher patcher;
  private final CanAdopt canAdopt;
  // guarded by this: whether the adoption check ran, and its failure
  private boolean canAdoptChecked;
  private Exception canAdoptError;

  /**
   * A manager for {@code controller} (of {@code controllerKind}) claiming objects its {@code selector} matches,
   * writing through {@code patcher}, adopting only if {@code canAdopt} passes.
   */
  public ControllerRefManager(HasMetadata controller, GroupVersionKind controllerKind, Selector selector,
      Patcher patcher, CanAdopt canAdopt) {
    this.controller = Objects.requireNonNull(controller, "controller");
    this.controllerKind = Objects.requireNonNull(controllerKind, "controllerKind");
    this.selector = Objects.requireNonNull(selector, "selector");
    this.patcher = Objects.requireNonNull(patcher, "patcher");
    this.canAdopt = Objects.requireNonNull(canAdopt, "canAdopt");
  }

  /** The claim decision for {@code obj}, given whether it matches the selector and filters ({@code ClaimObject}). */
  public static Decision decide(HasMetadata controller, HasMetadata obj, boolean matches) {
    boolean controllerDeleting = controller.getMetadata().getDeletionTimestamp() != null;
    Optional<OwnerReference> ref = OwnerReferences.controllerOf(obj);
    if (ref.isPresent()) {
      if (!Objects.equals(ref.get().getUid(), controller.getMetadata().getUid())) {
        return Decision.IGNORE;
      }
      if (matches) {
        return Decision.OWNED;
      }
      return controllerDeleting ? Decision.IGNORE : Decision.RELEASE;
    }
    if (controllerDeleting || !matches) {
      return Decision.IGNORE;
    }
    if (obj.getMetadata().getDeletionTimestamp() != null) {
      return Decision.IGNORE;
    }
    String ns = controller.getMetadata().getNamespace();
    if (ns != null && !ns.isEmpty() && !ns.equals(obj.getMetadata().getNamespace())) {
      return Decision.IGNORE;
    }
    return Decision.ADOPT;
  }

  /** Claims {@code objects} by the selector alone. */
  public Claimed<T> claim(List<T> objects) {
    return claim(objects, o -> true);
  }

  /** Claims {@code objects} that match the selector and {@code filter} (checked only after the selector). */
  public Claimed<T> claim(List<T> objects, Predicate<? super T> filter) {
    List<T> claimed = new ArrayList<>();
    List<Exception> errors = new ArrayList<>();
    for (T obj : objects) {
      boolean matches = selector.matches(obj.getMetadata().getLabels()) && filter.test(obj);
      switch (decide(controller, obj, matches)) {
        case OWNED -> claimed.add(obj);
        case RELEASE -> {
          try {
            release(obj);
          } catch (RuntimeException e) {
            if (!KubeApiErrors.isNotFound(e)) {
              errors.add(e);
            }
          }
        }
        case ADOPT -> {
          try {
            adopt(obj);
            claimed.add(obj);
          } catch (Exception e) {
            if (!KubeApiErrors.isNotFound(e)) {
              errors.add(e);
            }
          }
        }
        case IGNORE -> { }
        default -> throw new AssertionError();
      }
    }
    return new Claimed<>(claimed, errors);
  }

  /**
   * Makes the controller the controller of {@code obj} ({@code AdoptPod}/{@code AdoptReplicaSet}) after the
   * adoption check. The server rejects the patch if another controller reference exists.
   *
   * @throws AdoptionRefusedException if the adoption check fails
   */
  public void adopt(T obj) throws AdoptionRefusedException {
    Exception refused = checkCanAdopt();
    if (refused != null) {
      throw new AdoptionRefusedException("can't adopt " + kindOf(obj) + " " + obj.getMetadata().getNamespace() + "/"
          + obj.getMetadata().getName() + " (" + obj.getMetadata().getUid() + "): "
          + KubeApiErrors.message(refused), refused);
    }
    patcher.patch(obj.getMetadata().getNamespace(), obj.getMetadata().getName(),
        OwnerReferences.adoptPatch(controller, controllerKind, obj.getMetadata().getUid()));
  }

  /**
   * Removes the controller's ownerReference from {@code obj} ({@code ReleasePod}/{@code ReleaseReplicaSet}); 404 and
   * 422 answers are ignored (the object is gone or was re-created).
   */
  public void release(T obj) {
    LOG.debug("patching {} {}/{} to remove its controllerRef to {}/{}:{}", kindOf(obj),
        obj.getMetadata().getNamespace(), obj.getMetadata().getName(), controllerKind.apiVersion(),
        controllerKind.kind(), controller.getMetadata().getName());
    try {
      patcher.patch(obj.getMetadata().getNamespace(), obj.getMetadata().getName(),
          OwnerReferences.releasePatch(obj.getMetadata().getUid(), controller.getMetadata().getUid()));
    } catch (RuntimeException e) {
      if (KubeApiErrors.isNotFound(e) || KubeApiErrors.isInvalid(e)) {
        return;
      }
      throw e;
    }
  }

  private synchronized Exception checkCanAdopt() {
    if (!canAdoptChecked) {
      canAdoptChecked = true;
      try {
        canAdopt.check();
      } catch (Exception e) {
        canAdoptError = e;
      }
    }
    return canAdoptError;
  }

  private static String kindOf(HasMetadata obj) {
    return obj.getKind() != null ? obj.getKind() : HasMetadata.getKind(obj.getClass());
  }

  /**
   * The adoption check upstream's controllers use: {@code fresh} reads the owner live from the API server (a GET,
   * never the informer cache; null when it is gone); adoption is refused if it is gone, has another UID than
   * {@code original} (deleted and re-created), or is being deleted.
   */
  public static CanAdopt recheckOwner(Supplier<? extends HasMetadata> fresh, HasMetadata original) {
    return () -> {
      HasMetadata current;
      try {
        current = fresh.get();
        if (current == null) {
          throw new IllegalStateException(kindOf(original) + " " + original.getMetadata().getNamespace() + "/"
              + original.getMetadata().getName() + " not found");
        }
        if (!Objects.equals(current.getMetadata().getUid(), original.getMetadata().getUid())) {
          throw new IllegalStateException("original " + kindOf(original) + " "
              + original.getMetadata().getNamespace() + "/" + original.getMetadata().getName()
              + " is gone: got uid " + current.getMetadata().getUid() + ", wanted " + original.getMetadata().getUid());
        }
      } catch (RuntimeException e) {
        throw new IllegalStateException("can't recheck DeletionTimestamp: " + KubeApiErrors.message(e), e);
      }
      if (current.getMetadata().getDeletionTimestamp() != null) {
        throw new IllegalStateException(current.getMetadata().getNamespace() + "/" + current.getMetadata().getName()
            + " has just been deleted at " + current.getMetadata().getDeletionTimestamp());
      }
    };
  }

  /** The adoption check refused: the owner is gone, re-created, or being deleted. */
  public static final class AdoptionRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    public AdoptionRefusedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
