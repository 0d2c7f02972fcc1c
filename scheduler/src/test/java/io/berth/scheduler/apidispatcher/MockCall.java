package io.berth.scheduler.apidispatcher;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/** A call whose behaviour each test sets, counting how often the dispatcher used each part. */
final class MockCall implements ApiCall {
  static final String LOW = "low";
  static final String HIGH = "high";
  static final java.util.Map<String, Integer> RELEVANCES = java.util.Map.of(LOW, 1, HIGH, 2);

  final String type;
  final String uid;
  final AtomicInteger executes = new AtomicInteger();
  final AtomicInteger merges = new AtomicInteger();
  final AtomicInteger syncs = new AtomicInteger();
  final AtomicInteger noOpChecks = new AtomicInteger();
  volatile boolean afterRunning;
  volatile Runnable onExecute = () -> { };
  volatile Consumer<ApiCall> onMerge = older -> { };
  volatile UnaryOperator<Pod> onSync = p -> p;
  volatile BooleanSupplier noOp = () -> false;

  MockCall(String type, String uid) {
    this.type = type;
    this.uid = uid;
  }

  MockCall noOp(BooleanSupplier value) {
    this.noOp = value;
    return this;
  }

  @Override
  public String type() {
    return type;
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public void execute() {
    executes.incrementAndGet();
    onExecute.run();
  }

  @Override
  public void mergeFrom(ApiCall older) {
    merges.incrementAndGet();
    onMerge.accept(older);
  }

  @Override
  public Pod sync(Pod current) {
    syncs.incrementAndGet();
    return onSync.apply(current);
  }

  @Override
  public boolean isNoOp() {
    noOpChecks.incrementAndGet();
    return noOp.getAsBoolean();
  }

  @Override
  public void afterRunningCall() {
    afterRunning = true;
  }

  @Override
  public String toString() {
    return type + " " + uid;
  }
}
