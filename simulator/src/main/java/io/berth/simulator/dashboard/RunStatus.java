package io.berth.simulator.dashboard;

/**
 * What the dashboard's title bar says about the run: the scenario's name and description, and a one-line status
 * the scenario runner updates as it goes ("step 2/5: scale Deployment demo/web to 9", "done: ..."). Thread-safe:
 * the runner writes and request threads read volatile fields.
 */
public final class RunStatus {

  private final String scenario;
  private final String description;
  private volatile String status = "starting";
  private volatile boolean done;

  public RunStatus(String scenario, String description) {
    this.scenario = scenario;
    this.description = description;
  }

  public String scenario() {
    return scenario;
  }

  public String description() {
    return description;
  }

  public String status() {
    return status;
  }

  public boolean done() {
    return done;
  }

  public void set(String value) {
    status = value;
  }

  /** The run ended (the cluster keeps serving); {@code value} says how. */
  public void finish(String value) {
    status = value;
    done = true;
  }
}
