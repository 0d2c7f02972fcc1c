package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoggingEventRecorderFactoryTest {

  private final Logger logger = (Logger) LoggerFactory.getLogger("io.berth.controller.events.replicaset-controller");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  @BeforeEach
  void attach() {
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.INFO);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(appender);
    logger.setLevel(null);
  }

  private static Pod pod() {
    return new PodBuilder().withNewMetadata().withNamespace("default").withName("web-1").endMetadata().build();
  }

  @Test
  void normalEventsAreInfoAndWarningsWarn() {
    EventRecorder recorder = new LoggingEventRecorderFactory().forComponent("replicaset-controller");
    recorder.event(pod(), EventRecorder.NORMAL, "SuccessfulCreate", "Created pod: %s", "web-1");
    recorder.event(pod(), EventRecorder.WARNING, "FailedCreate", "Error creating: %s", "quota");
    assertThat(appender.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.INFO, Level.WARN);
    assertThat(appender.list.get(0).getFormattedMessage())
        .isEqualTo("Event(Pod default/web-1): type: 'Normal' reason: 'SuccessfulCreate' Created pod: web-1");
    assertThat(appender.list.get(1).getFormattedMessage()).contains("'FailedCreate' Error creating: quota");
  }

  @Test
  void aBadFormatIsLoggedAsGivenInsteadOfThrowing() {
    EventRecorder recorder = new LoggingEventRecorderFactory().forComponent("replicaset-controller");
    recorder.event(pod(), EventRecorder.NORMAL, "Odd", "%d replicas", "not a number");
    recorder.event(null, EventRecorder.NORMAL, "Odd", null);
    assertThat(appender.list).hasSize(2);
    assertThat(appender.list.get(0).getFormattedMessage()).endsWith("%d replicas");
  }
}
