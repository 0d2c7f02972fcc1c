package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * deploy/Dockerfile copies what the build produces: every COPY source exists (relative to the repository root, the
 * build context) after {@code mvn package}, each jar is a runnable jar, and the entrypoint scripts are executable.
 * Runs in failsafe's integration-test phase, after the daemons' modules have packaged their jars.
 */
class DockerfileJarsIT {

  /** The sources of every COPY instruction, in order (flags such as --chown dropped, the destination dropped). */
  static List<String> copySources(Path dockerfile) throws IOException {
    List<String> sources = new ArrayList<>();
    for (String line : Files.readAllLines(dockerfile)) {
      String trimmed = line.strip();
      if (!trimmed.regionMatches(true, 0, "COPY ", 0, 5)) {
        continue;
      }
      List<String> words = new ArrayList<>(Arrays.asList(trimmed.substring(5).strip().split("\\s+")));
      words.removeIf(w -> w.startsWith("--"));
      if (words.size() < 2) {
        throw new AssertionError("COPY without source and destination: " + line);
      }
      sources.addAll(words.subList(0, words.size() - 1));
    }
    return sources;
  }

  @Test
  void everyCopiedPathExistsAfterPackage() throws IOException {
    Path root = DeployPaths.repositoryRoot();
    List<String> sources = copySources(DeployPaths.deployDir().resolve("Dockerfile"));

    assertThat(sources).contains("scheduler/target/berth-scheduler.jar",
        "controller-manager/target/berth-controller-manager.jar");
    for (String source : sources) {
      assertThat(root.resolve(source)).as("COPY source %s (run mvn package first)", source).exists();
    }
  }

  @Test
  void copiedJarsAreRunnable() throws IOException {
    Path root = DeployPaths.repositoryRoot();
    for (String source : copySources(DeployPaths.deployDir().resolve("Dockerfile"))) {
      if (!source.endsWith(".jar")) {
        continue;
      }
      try (JarFile jar = new JarFile(root.resolve(source).toFile())) {
        assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class")).as("Main-Class of %s", source)
            .startsWith("io.berth.");
      }
    }
  }

  @Test
  void entrypointScriptsAreExecutableAndRunTheCopiedJars() throws IOException {
    Path image = DeployPaths.deployDir().resolve("image");
    for (String daemon : List.of("berth-scheduler", "berth-controller-manager")) {
      Path script = image.resolve(daemon);
      assertThat(Files.isExecutable(script)).as("%s is executable", script).isTrue();
      assertThat(Files.readString(script)).startsWith("#!/bin/sh")
          .contains("exec java -jar /opt/berth/" + daemon + ".jar \"$@\"");
      assertThat(Files.readString(DeployPaths.deployDir().resolve("Dockerfile")))
          .contains("/opt/berth/" + daemon + ".jar");
    }
  }
}
