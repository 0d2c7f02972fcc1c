package io.berth.plugins.imagelocality;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.CycleState;
import io.berth.framework.Handle;
import io.berth.framework.ImageStateSummary;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.ScorePlugin;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * Score plugin favouring nodes that already hold the pod's images, as kube-scheduler's
 * {@code ImageLocality}. Each init and regular container whose image the node has adds the image
 * size scaled by the share of cluster nodes holding it (so a pod is not drawn to the one node
 * that happens to have a rare image: the "node heating" problem); the sum is clamped to
 * [23 MiB, 1000 MiB × number of containers] and mapped linearly onto [0, 100]. No NormalizeScore.
 * Thread-safe: it keeps only the profile's {@link Handle}, and reads the cycle's snapshot.
 */
public final class ImageLocality implements ScorePlugin, SignPlugin {
  public static final String NAME = "ImageLocality";

  private static final long MB = 1024L * 1024L;
  /** Below this the sum counts as no image present. */
  static final long MIN_THRESHOLD = 23 * MB;
  /** Per container: above this many bytes, the score does not grow further. */
  static final long MAX_CONTAINER_THRESHOLD = 1000 * MB;

  private final Handle handle;

  private ImageLocality(Handle handle) {
    this.handle = handle;
  }

  /** The factory registered for {@link #NAME}; ImageLocality takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return new ImageLocality(handle);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Scores depend on the (normalized) images of the containers and init containers. */
  @Override
  public SignResult signPod(Pod pod) {
    List<String> images = new java.util.ArrayList<>();
    for (Container c : containers(pod, true)) {
      images.add(normalizedImageName(c.getImage()));
    }
    for (Container c : containers(pod, false)) {
      images.add(normalizedImageName(c.getImage()));
    }
    images.sort(null);
    return SignResult.of(new SignFragment(PodSigners.IMAGE_NAMES, List.copyOf(images)));
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    int totalNumNodes = handle.snapshotLister().list().size();
    List<Container> init = containers(pod, true);
    List<Container> regular = containers(pod, false);
    long sum = sumImageScores(nodeInfo, init, totalNumNodes)
        + sumImageScores(nodeInfo, regular, totalNumNodes);
    return calculatePriority(sum, init.size() + regular.size());
  }

  /** Maps the summed image scores onto [0, 100] between the thresholds. */
  static long calculatePriority(long sumScores, int numContainers) {
    long maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
    long clamped = sumScores;
    if (clamped < MIN_THRESHOLD) {
      clamped = MIN_THRESHOLD;
    } else if (clamped > maxThreshold) {
      clamped = maxThreshold;
    }
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (maxThreshold - MIN_THRESHOLD);
  }

  /**
   * The CRI form of an image name as upstream's {@code normalizedImageName}: ":latest" is added
   * when the name carries no tag (no ':' after the last '/'). Registry prefixes such as
   * {@code docker.io/library/} are left alone, as upstream leaves them; the node reports every
   * name an image goes by, so each spelling it reports can match.
   */
  static String normalizedImageName(String name) {
    if (name.lastIndexOf(':') <= name.lastIndexOf('/')) {
      return name + ":latest";
    }
    return name;
  }

  private static long sumImageScores(NodeInfo nodeInfo, List<Container> containers,
      int totalNumNodes) {
    Map<String, ImageStateSummary> images = nodeInfo.imageStates();
    long sum = 0;
    for (Container c : containers) {
      if (c.getImage() == null) {
        continue;
      }
      ImageStateSummary state = images.get(normalizedImageName(c.getImage()));
      if (state != null) {
        sum += scaledImageScore(state, totalNumNodes);
      }
    }
    return sum;
  }

  /** The image size scaled by the fraction of nodes that hold the image. */
  private static long scaledImageScore(ImageStateSummary state, int totalNumNodes) {
    double spread = (double) state.numNodes() / totalNumNodes;
    return (long) (state.size() * spread);
  }

  private static List<Container> containers(Pod pod, boolean init) {
    if (pod.getSpec() == null) {
      return List.of();
    }
    List<Container> list = init ? pod.getSpec().getInitContainers() : pod.getSpec().getContainers();
    return list == null ? List.of() : list;
  }
}
