package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Pins {@link AssumedPod}: every property of fabric8's PodSpec (found by reflection, so a property a new fabric8
 * version adds fails here until the copy carries it) is carried over as the same object, only {@code nodeName}
 * differs, and the original pod is untouched. Values are random per property and repetition, so two properties of
 * one type passed in each other's place are caught.
 */
class AssumedPodTest {

  private final Random random = new Random();

  @RepeatedTest(20)
  void everyPropertyButNodeNameIsTheOriginalsObject() throws Exception {
    PodSpec spec = new PodSpec();
    List<PropertyDescriptor> properties = properties();
    for (PropertyDescriptor p : properties) {
      p.getWriteMethod().invoke(spec, value(p.getReadMethod().getGenericReturnType()));
    }
    spec.setAdditionalProperty("futureField", UUID.randomUUID().toString());
    Pod pod = new Pod("v1", "Pod", new ObjectMetaBuilder().withName("p").withNamespace("ns").build(), spec,
        new PodStatusBuilder().withPhase("Pending").build());
    pod.setAdditionalProperty("extra", 7);
    String before = spec.getNodeName();
    PodSpec expected = new PodSpecBuilder(spec).withNodeName("node-1").build();

    Pod assumed = AssumedPod.on(pod, "node-1");

    assertThat(assumed.getSpec()).isNotSameAs(spec).isEqualTo(expected);
    assertThat(assumed.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(spec.getNodeName()).as("the original is untouched").isEqualTo(before);
    for (PropertyDescriptor p : properties) {
      if (!p.getName().equals("nodeName")) {
        assertThat(p.getReadMethod().invoke(assumed.getSpec())).as(p.getName())
            .isSameAs(p.getReadMethod().invoke(spec));
      }
    }
    assertThat(assumed.getSpec().getAdditionalProperties()).isEqualTo(spec.getAdditionalProperties());
    assertThat(assumed.getMetadata()).isSameAs(pod.getMetadata());
    assertThat(assumed.getStatus()).isSameAs(pod.getStatus());
    assertThat(assumed.getAdditionalProperties()).containsEntry("extra", 7);
    assertThat(assumed.getApiVersion()).isEqualTo("v1");
    assertThat(assumed.getKind()).isEqualTo("Pod");
  }

  @Test
  void aPodWithoutSpecGetsOneWithTheNodeName() {
    Pod assumed = AssumedPod.on(new Pod(), "node-2");
    assertThat(assumed.getSpec().getNodeName()).isEqualTo("node-2");
  }

  private static List<PropertyDescriptor> properties() throws Exception {
    List<PropertyDescriptor> out = new ArrayList<>();
    for (PropertyDescriptor p : Introspector.getBeanInfo(PodSpec.class).getPropertyDescriptors()) {
      if (p.getReadMethod() != null && p.getWriteMethod() != null && !p.getName().equals("additionalProperties")) {
        out.add(p);
      }
    }
    assertThat(out).hasSizeGreaterThan(40);
    return out;
  }

  /** A random value of {@code type}: distinct objects (told apart by equals) for every call. */
  private Object value(Type type) throws Exception {
    if (type == String.class) {
      return UUID.randomUUID().toString();
    }
    if (type == Boolean.class) {
      return switch (random.nextInt(3)) {
        case 0 -> Boolean.TRUE;
        case 1 -> Boolean.FALSE;
        default -> null;
      };
    }
    if (type == Long.class) {
      return random.nextLong();
    }
    if (type == Integer.class) {
      return random.nextInt();
    }
    if (type instanceof ParameterizedType pt && pt.getRawType() == List.class) {
      List<Object> list = new ArrayList<>();
      list.add(value(pt.getActualTypeArguments()[0]));
      return list;
    }
    if (type instanceof ParameterizedType pt && pt.getRawType() == Map.class) {
      Type v = pt.getActualTypeArguments()[1];
      return new java.util.HashMap<>(Map.of(UUID.randomUUID().toString(),
          v == Quantity.class ? new Quantity(Integer.toString(random.nextInt(1000))) : value(v)));
    }
    // a fabric8 model: a fresh instance told apart by an additional property
    Object model = ((Class<?>) type).getConstructor().newInstance();
    model.getClass().getMethod("setAdditionalProperty", String.class, Object.class)
        .invoke(model, "id", UUID.randomUUID().toString());
    return model;
  }
}
