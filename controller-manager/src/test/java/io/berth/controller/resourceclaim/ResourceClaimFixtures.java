package io.berth.controller.resourceclaim;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import java.util.List;
import java.util.Map;

/** Pods, templates and claims for the resource claim controller's tests. Stateless. */
final class ResourceClaimFixtures {

  static final String NS = "default";

  private ResourceClaimFixtures() {
  }

  /** A pod with one template entry {@code gpus -> template}, optionally with claim statuses. */
  static Pod podWithTemplate(String name, String template, PodResourceClaimStatus... statuses) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).withUid("uid-" + name)
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("pause").endContainer()
        .withResourceClaims(new PodResourceClaimBuilder().withName("gpus").withResourceClaimTemplateName(template)
            .build()).endSpec()
        .withNewStatus().withPhase("Pending").withResourceClaimStatuses(statuses).endStatus().build();
  }

  static Pod onNode(Pod pod, String node) {
    return new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build();
  }

  static Pod withPhase(Pod pod, String phase) {
    return new PodBuilder(pod).editStatus().withPhase(phase).endStatus().build();
  }

  static ResourceClaimTemplate template(String name) {
    return new ResourceClaimTemplateBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().withNewMetadata().withLabels(Map.of("team", "ml")).withAnnotations(Map.of("note", "t"))
        .endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
        .withDeviceClassName("gpu.berth.io").withCount(2L).endExactly().endRequest().endDevices().endSpec()
        .endSpec().build();
  }

  /** A claim generated for {@code pod}'s entry {@code gpus}, allocated and reserved for {@code reservedFor}. */
  static ResourceClaim generatedClaim(String name, Pod owner, boolean finalizer, Pod... reservedFor) {
    ResourceClaimBuilder b = new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace(NS)
        .withUid("uid-" + name).withResourceVersion("5")
        .withAnnotations(Map.of(PodClaims.POD_CLAIM_NAME_ANNOTATION, "gpus"))
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
            .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true)
            .build())
        .withFinalizers(finalizer ? List.of(PodClaims.DELETE_PROTECTION_FINALIZER) : List.of()).endMetadata()
        .withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
        .withDeviceClassName("gpu.berth.io").withCount(1L).endExactly().endRequest().endDevices().endSpec();
    b.withNewStatus().withAllocation(new AllocationResultBuilder().withNewDevices().withResults(
        new DeviceRequestAllocationResultBuilder().withRequest("gpu").withDriver("gpu.berth.io").withPool("n1")
            .withDevice("gpu-0").build()).endDevices().build())
        .withReservedFor(java.util.Arrays.stream(reservedFor).map(p -> new ResourceClaimConsumerReferenceBuilder()
            .withResource("pods").withName(p.getMetadata().getName()).withUid(p.getMetadata().getUid()).build())
            .toList())
        .endStatus();
    return b.build();
  }
}
