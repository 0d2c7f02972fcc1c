package io.berth.simulator.scenario;

import io.berth.embedded.NodeSpec;
import java.time.Duration;
import java.util.List;

/**
 * One timed action of a scenario, run {@link #at()} after the scenario's manifests were created. Steps run in file
 * order; the loader has checked that their times never decrease and that what they name exists by then. Immutable.
 */
public sealed interface Step {

  /** When the step runs, from the moment the manifests were created. */
  Duration at();

  /** One line for the log and the dashboard's event stream. */
  String describe();

  /** Sets a Deployment's {@code spec.replicas}. */
  record Scale(Duration at, String namespace, String deployment, int replicas) implements Step {
    @Override
    public String describe() {
      return "scale Deployment " + namespace + "/" + deployment + " to " + replicas;
    }
  }

  /** Sets the image of one container of a Deployment's pod template: a rolling update. */
  record SetImage(Duration at, String namespace, String deployment, String container, String image)
      implements Step {
    @Override
    public String describe() {
      return "set image of Deployment " + namespace + "/" + deployment + " container " + container + " to " + image;
    }
  }

  /** Adds simulated nodes. */
  record AddNodes(Duration at, List<NodeSpec> nodes) implements Step {
    public AddNodes {
      nodes = List.copyOf(nodes);
    }

    @Override
    public String describe() {
      return "add node" + (nodes.size() == 1 ? " " : "s ") + String.join(", ", nodes.stream().map(NodeSpec::name)
          .toList());
    }
  }

  /** Deletes a node; the simulated kubelet's pods on it go with it. */
  record RemoveNode(Duration at, String node) implements Step {
    @Override
    public String describe() {
      return "remove node " + node;
    }
  }

  /** Marks a node unschedulable ({@code kubectl cordon}) or schedulable again ({@code kubectl uncordon}). */
  record Cordon(Duration at, String node, boolean unschedulable) implements Step {
    @Override
    public String describe() {
      return (unschedulable ? "cordon" : "uncordon") + " node " + node;
    }
  }

  /** Creates one more object. */
  record Apply(Duration at, Manifest manifest) implements Step {
    @Override
    public String describe() {
      return "create " + manifest.label();
    }
  }
}
