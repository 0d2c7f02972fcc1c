package io.berth.plugins.defaultpreemption;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A node on which the preemptor fits once {@code victims} are gone, and how many of those victims
 * would break a PodDisruptionBudget. Victims are ordered from most to least important. Immutable.
 */
record Candidate(String nodeName, List<Pod> victims, int numPdbViolations) {
  Candidate {
    victims = List.copyOf(victims);
  }
}
