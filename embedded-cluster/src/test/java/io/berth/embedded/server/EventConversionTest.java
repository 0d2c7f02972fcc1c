package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The events.k8s.io/v1 and core/v1 forms of an Event map field by field, both ways. */
class EventConversionTest {

  private static ObjectNode parse(String json) {
    return Json.parseObject(json.replace('\'', '"').getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void everyEventsV1FieldHasItsCoreCounterpartAndBack() {
    ObjectNode v1 = parse("{'apiVersion':'events.k8s.io/v1','kind':'Event','metadata':{'name':'p.1','namespace':'ns'},"
        + "'eventTime':'2026-12-02T08:00:00.000001Z','series':{'count':4,'lastObservedTime':'2026-12-02T08:01:00.000002Z'},"
        + "'reportingController':'default-scheduler','reportingInstance':'default-scheduler-h','action':'Binding',"
        + "'reason':'Scheduled','regarding':{'kind':'Pod','name':'p'},'related':{'kind':'Node','name':'n'},"
        + "'note':'assigned','type':'Normal','deprecatedSource':{'component':'c'},"
        + "'deprecatedFirstTimestamp':'2026-12-02T07:00:00Z','deprecatedLastTimestamp':'2026-12-02T07:01:00Z',"
        + "'deprecatedCount':5}");
    ObjectNode core = EventConversion.toCore(v1);
    assertThat(core).isEqualTo(parse("{'apiVersion':'v1','kind':'Event','metadata':{'name':'p.1','namespace':'ns'},"
        + "'involvedObject':{'kind':'Pod','name':'p'},'message':'assigned','reportingComponent':'default-scheduler',"
        + "'source':{'component':'c'},'firstTimestamp':'2026-12-02T07:00:00Z',"
        + "'lastTimestamp':'2026-12-02T07:01:00Z','count':5,'eventTime':'2026-12-02T08:00:00.000001Z',"
        + "'action':'Binding','reason':'Scheduled','related':{'kind':'Node','name':'n'},"
        + "'reportingInstance':'default-scheduler-h','type':'Normal',"
        + "'series':{'count':4,'lastObservedTime':'2026-12-02T08:01:00.000002Z'}}"));
    assertThat(EventConversion.toV1(core)).isEqualTo(v1);
  }

  @Test
  void zeroValuesReadAsTheTypedObjectsEncodeThem() {
    ObjectNode core = parse("{'apiVersion':'v1','kind':'Event','metadata':{'name':'p.1'},'count':0,"
        + "'series':{'count':2,'lastObservedTime':'t','state':'Ongoing'},'unknown':1}");
    ObjectNode v1 = EventConversion.toV1(core);
    assertThat(v1.has("deprecatedCount")).isFalse();
    assertThat(v1.get("eventTime").isNull()).isTrue();
    assertThat(v1.get("regarding")).isEqualTo(Json.object());
    assertThat(v1.get("deprecatedSource")).isEqualTo(Json.object());
    assertThat(v1.get("series")).isEqualTo(parse("{'count':2,'lastObservedTime':'t'}"));
    assertThat(v1.has("unknown")).isFalse();
    assertThat(core.has("unknown")).as("the argument is not changed").isTrue();
  }
}
