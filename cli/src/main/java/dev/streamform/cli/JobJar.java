package dev.streamform.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The shaded jar a Flink cluster runs (module {@code job-jar}: Streamform's pipelines with the Beam
 * Flink runner and every dependency, Beam's service files merged). Staging that one jar takes a
 * moment where staging the ~200 jars of the classpath took ~20 s. {@link #locate} builds it with
 * Maven when it is missing or older than one of Streamform's own module jars.
 */
final class JobJar {
  static final String MODULE = "job-jar";

  /** The modules of this checkout that the job jar packs. */
  private static final List<String> PACKED =
      List.of(
          "policies", "transforms", "planner", "test-streams", "revision-sink", "pipelines", "cli");

  private static final long BUILD_TIMEOUT_MINUTES = 10;

  private JobJar() {}

  /** The up-to-date job jar of the checkout at {@code home}, built first if needed. */
  static Path locate(Path home, PrintWriter err) throws IOException, InterruptedException {
    Path jar = find(home);
    if (jar != null && !olderThanModules(jar, home)) {
      return jar;
    }
    err.println(
        "streamform: building the job jar for the Flink cluster ("
            + MODULE
            + ", once per change)...");
    err.flush();
    if (!mvn(home, true) && !mvn(home, false)) {
      throw new IOException(
          "building the job jar failed: see "
              + buildLog(home)
              + " (or build it yourself: mvn -pl "
              + MODULE
              + " -am package -DskipTests)");
    }
    jar = find(home);
    if (jar == null) {
      throw new IOException(
          "the build made no job jar in " + home.resolve(MODULE).resolve("target"));
    }
    return jar;
  }

  private static Path find(Path home) throws IOException {
    List<Path> jars = moduleJars(home.resolve(MODULE));
    return jars.isEmpty() ? null : jars.get(0);
  }

  /** Stale when the jar of a module it packs is newer. */
  private static boolean olderThanModules(Path jar, Path home) throws IOException {
    FileTime built = Files.getLastModifiedTime(jar);
    for (String module : PACKED) {
      for (Path moduleJar : moduleJars(home.resolve(module))) {
        if (Files.getLastModifiedTime(moduleJar).compareTo(built) > 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<Path> moduleJars(Path module) throws IOException {
    Path target = module.resolve("target");
    List<Path> jars = new ArrayList<>();
    if (!Files.isDirectory(target)) {
      return jars;
    }
    try (Stream<Path> files = Files.list(target)) {
      files
          .filter(
              f -> {
                String name = f.getFileName().toString();
                return name.startsWith("streamform-")
                    && name.endsWith(".jar")
                    && !name.endsWith("-tests.jar")
                    && !name.endsWith("-sources.jar");
              })
          .forEach(jars::add);
    }
    return jars;
  }

  /** The sibling modules come from the local repository, where the launcher installs them. */
  private static boolean mvn(Path home, boolean offline) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("mvn", "-B", "-q"));
    if (offline) {
      command.add("-o");
    }
    command.addAll(
        List.of("-f", home.resolve("pom.xml").toString(), "-pl", MODULE, "package", "-DskipTests"));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(buildLog(home).toFile())
            .start();
    if (!process.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return false;
    }
    return process.exitValue() == 0;
  }

  private static Path buildLog(Path home) throws IOException {
    Path dir = home.resolve(MODULE).resolve("target");
    Files.createDirectories(dir);
    return dir.resolve("job-jar-build.log");
  }
}
