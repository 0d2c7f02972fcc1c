package io.berth.plugins.noderesources;

/**
 * Classifies resource names as kube-scheduler does ({@code v1helper.IsExtendedResourceName},
 * {@code schedutil.IsScalarResourceName}): which names the scheduler tracks as scalar resources and
 * which of those are extended resources that {@code ignoredResources} may skip. Stateless.
 */
final class ResourceNames {
  private static final String NATIVE_PREFIX = "kubernetes.io/";
  private static final String REQUESTS_PREFIX = "requests.";
  private static final String HUGEPAGES_PREFIX = "hugepages-";
  private static final String ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-";

  private ResourceNames() {}

  /**
   * Whether {@code name} is an extended resource: not native (it has a domain other than
   * kubernetes.io) and "requests." + name is a valid qualified name, as quota requires.
   */
  static boolean isExtended(String name) {
    if (isNative(name) || name.startsWith(REQUESTS_PREFIX)) {
      return false;
    }
    return QualifiedNames.validate(REQUESTS_PREFIX + name).isEmpty();
  }

  /** Whether the scheduler accounts {@code name} as a scalar resource (extended, hugepages...). */
  static boolean isScalar(String name) {
    return isExtended(name) || name.startsWith(HUGEPAGES_PREFIX) || isPrefixedNative(name)
        || name.startsWith(ATTACHABLE_VOLUMES_PREFIX);
  }

  /** The domain part of a {@code domain/name} resource ("" when there is no slash). */
  static String group(String name) {
    int slash = name.indexOf('/');
    return slash < 0 ? name : name.substring(0, slash);
  }

  private static boolean isNative(String name) {
    return name.indexOf('/') < 0 || isPrefixedNative(name);
  }

  private static boolean isPrefixedNative(String name) {
    return name.contains(NATIVE_PREFIX);
  }
}
