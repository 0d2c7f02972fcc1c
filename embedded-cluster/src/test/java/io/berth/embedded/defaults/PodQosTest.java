package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

class PodQosTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no resources                         | [{}]                                                                        | BestEffort",
      "only non-qos resources               | [{\"resources\":{\"requests\":{\"ephemeral-storage\":\"1Gi\"}}}]              | BestEffort",
      "equal cpu and memory                 | [{\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1000m\",\"memory\":\"1024Mi\"}}}] | Guaranteed",
      "limits below requests in other units | [{\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1G\"}}}]         | Burstable",
      "cpu only                             | [{\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"1\"}}}]      | Burstable",
      "requests only                        | [{\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]         | Burstable",
      "numeric quantities                   | [{\"resources\":{\"requests\":{\"cpu\":2,\"memory\":1024},\"limits\":{\"cpu\":\"2\",\"memory\":\"1Ki\"}}}]              | Guaranteed",
      "guaranteed and best effort mix       | [{\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},{}] | Burstable",
      "two guaranteed                       | [{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},{\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}}] | Guaranteed",
  })
  void classifiesContainersAsUpstream(String description, String containers, String expected) {
    assertThat(PodQos.of(JSON.readTree("{\"containers\":" + containers + "}"))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "burstable init container   | {\"initContainers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],\"containers\":[{}]}   | Burstable",
      "pod-level resources decide | {\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}},\"containers\":[{}]} | Guaranteed",
      "no containers              | {}                                                                                        | BestEffort",
  })
  void initContainersAndPodLevelResourcesCount(String description, String spec, String expected) {
    assertThat(PodQos.of(JSON.readTree(spec))).isEqualTo(expected);
  }
}
