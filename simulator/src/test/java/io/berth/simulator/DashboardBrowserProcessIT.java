package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in headless Chromium against the simulator jar running {@code scenarios/pending.yaml}: the page shows
 * the nodes grouped by zone with their pods, the pending pods with their reasons, the queue depths, and a pod's
 * explanation one click away. Drives Debian's {@code chromium} through {@code /usr/bin/chromedriver} (paths
 * overridable with {@code -Dberth.chromium} and {@code -Dberth.chromedriver}); Selenium Manager downloads nothing.
 * {@code .ci/run} installs both packages, so a missing browser fails this test rather than skipping it. Leaves a
 * screenshot in {@code target/dashboard.png}.
 */
class DashboardBrowserProcessIT {

  private static final Path CHROMIUM = Path.of(System.getProperty("berth.chromium", "/usr/bin/chromium"));
  private static final Path CHROMEDRIVER = Path.of(System.getProperty("berth.chromedriver",
      "/usr/bin/chromedriver"));
  private static final Duration WAIT = Duration.ofSeconds(180);

  @Test
  void showsNodesPodsAPendingPodsReasonAndQueueDepths() throws Exception {
    assertThat(CHROMIUM).as("chromium (apt-get install chromium chromium-driver; .ci/run does)").isExecutable();
    assertThat(CHROMEDRIVER).as("chromedriver (apt-get install chromium-driver; .ci/run does)").isExecutable();
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", "scenarios/pending.yaml",
        "--dashboard-port", "0")) {
      String url = sim.dashboardUrl();
      ChromeOptions options = new ChromeOptions();
      options.setBinary(CHROMIUM.toFile());
      options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--window-size=1440,1000");
      ChromeDriverService service = new ChromeDriverService.Builder()
          .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
      ChromeDriver browser = new ChromeDriver(service, options);
      try {
        browser.get(url);
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        // the page re-renders every second: elements found in one pass may be gone in the next
        wait.ignoring(StaleElementReferenceException.class);
        // nodes as boxes, grouped by zone
        wait.until(d -> d.findElements(By.cssSelector(".zone[data-zone='zone-b'] .node")).size() == 2);
        assertThat(browser.findElements(By.cssSelector(".zone[data-zone='zone-a'] .node[data-node='small-a']")))
            .hasSize(1);
        // the api Deployment's pods on nodes, and its rollout done
        wait.until(d -> d.findElements(By.cssSelector(".node .pod.Running")).size() == 2);
        wait.until(d -> d.findElement(By.cssSelector("[data-deployment='apps/api'] .state")).getText()
            .contains("rolled out"));
        // a pending pod's reason, in the scheduler's words
        By tooBig = By.cssSelector("#pending tr[data-pod='apps/too-big']");
        wait.until(d -> {
          List<WebElement> rows = d.findElements(tooBig);
          return rows.size() == 1 && rows.get(0).getText().contains("Insufficient cpu")
              && rows.get(0).findElement(By.cssSelector(".queue")).getText().equals("unschedulable");
        });
        wait.until(d -> d.findElements(By.cssSelector("#pending tr[data-pod='apps/third-api']")).size() == 1);
        // queue depths
        wait.until(d -> d.findElement(By.cssSelector("#queue-gated .value")).getText().equals("1"));
        wait.until(d -> Integer.parseInt(d.findElement(By.cssSelector("#queue-unschedulable .value")).getText())
            >= 3);
        // the live event stream
        wait.until(d -> d.findElements(By.cssSelector("#events li")).stream()
            .anyMatch(li -> li.getText().contains("FailedScheduling")));
        // a screenshot of the whole page (before the dialog opens), kept under target/
        Path shot = Path.of("target", "dashboard.png");
        File file = browser.getScreenshotAs(OutputType.FILE);
        Files.copy(file.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(shot)).isPositive();
        // the explanation one click away
        wait.until(d -> {
          d.findElement(tooBig).findElement(By.cssSelector("button.why")).click();
          return true;
        });
        wait.until(d -> d.findElement(By.id("explain")).isDisplayed()
            && d.findElement(By.id("explain-body")).getText().contains("FailedScheduling"));
        assertThat(browser.findElement(By.id("explain-title")).getText()).contains("apps/too-big");
        // the scheduler's per-node verdicts of its latest attempt
        assertThat(browser.findElement(By.id("explain-body")).getText()).contains("Filter, per node")
            .contains("small-a").contains("NodeResourcesFit").contains("gpu-1").contains("TaintToleration");
        assertThat(browser.findElement(By.cssSelector("#explain-body .explain-reason")).getText())
            .contains("Insufficient cpu");
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), Path.of("target", "dashboard-explain.png"),
            StandardCopyOption.REPLACE_EXISTING);
      } finally {
        browser.quit();
        service.stop();
      }
    }
  }
}
