package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two launchers ({@code ./streamform}) started together on a checkout whose sources changed build
 * it once: the second waits for the first instead of running a second {@code mvn install} into the
 * same local repository at the same time. Run on a copy of the launcher in a stand-in checkout,
 * with a stand-in {@code mvn} on the PATH that logs each call and takes two seconds to "install".
 */
class LauncherLockTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void twoLaunchersStartedTogetherBuildOnce(@TempDir Path dir) throws Exception {
    Path checkout = dir.resolve("checkout");
    Files.createDirectories(checkout.resolve("cli/src/main/java"));
    Files.createDirectories(checkout.resolve("cli/target"));
    Files.copy(ROOT.resolve("streamform"), checkout.resolve("streamform"));
    Files.writeString(checkout.resolve("cli/pom.xml"), "<project/>\n");
    Path jar = checkout.resolve("cli/target/streamform-cli-0.1.0-SNAPSHOT.jar");
    Files.writeString(jar, "");
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
    Files.setLastModifiedTime(
        checkout.resolve("cli/pom.xml"), FileTime.from(Instant.now().minusSeconds(7200)));
    Files.writeString(checkout.resolve("cli/src/main/java/Changed.java"), "class Changed {}\n");

    Path bin = standInMaven(dir);
    Path log = dir.resolve("mvn.log");

    List<Process> launchers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      ProcessBuilder pb =
          new ProcessBuilder("bash", checkout.resolve("streamform").toString(), "--version")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("launcher-" + i + ".out").toFile());
      pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
      pb.environment().put("MVN_LOG", log.toString());
      pb.environment().put("STREAMFORM_NO_CDS", "1"); // no class-data archive: no real run
      launchers.add(pb.start());
    }
    for (Process p : launchers) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS), is(true));
    }
    List<String> installs =
        Files.readAllLines(log).stream().filter(l -> l.contains(" install ")).toList();
    String outputs =
        Files.readString(dir.resolve("launcher-0.out"))
            + Files.readString(dir.resolve("launcher-1.out"));
    assertThat(outputs + "\n" + String.join("\n", installs), installs.size(), is(1));
    assertThat(outputs, containsString("waiting for another streamform that is building"));
  }

  /**
   * A checkout built by {@code mvn verify} (its command line's jar newer than every source, but its
   * modules never installed): the launcher installs them once before it runs, as the class path it
   * resolves takes Streamform's modules from the local repository, which may hold an older build of
   * them. Then it runs without building again.
   */
  @Test
  void aCheckoutBuiltWithoutTheLauncherIsInstalledOnceBeforeItRuns(@TempDir Path dir)
      throws Exception {
    Path checkout = dir.resolve("checkout");
    Files.createDirectories(checkout.resolve("cli/src/main/java"));
    Files.createDirectories(checkout.resolve("cli/target"));
    Files.copy(ROOT.resolve("streamform"), checkout.resolve("streamform"));
    Path pom = Files.writeString(checkout.resolve("cli/pom.xml"), "<project/>\n");
    Path source =
        Files.writeString(checkout.resolve("cli/src/main/java/Old.java"), "class Old {}\n");
    Files.setLastModifiedTime(pom, FileTime.from(Instant.now().minusSeconds(7200)));
    Files.setLastModifiedTime(source, FileTime.from(Instant.now().minusSeconds(7200)));
    Path jar = checkout.resolve("cli/target/streamform-cli-0.1.0-SNAPSHOT.jar");
    Files.writeString(jar, "");
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(60)));
    Path bin = standInMaven(dir);
    Path log = dir.resolve("mvn.log");

    for (int i = 0; i < 2; i++) {
      ProcessBuilder pb =
          new ProcessBuilder("bash", checkout.resolve("streamform").toString(), "--version")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("launcher-" + i + ".out").toFile());
      pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
      pb.environment().put("MVN_LOG", log.toString());
      pb.environment().put("STREAMFORM_NO_CDS", "1");
      assertThat(pb.start().waitFor(60, TimeUnit.SECONDS), is(true));
    }
    List<String> installs =
        Files.exists(log)
            ? Files.readAllLines(log).stream().filter(l -> l.contains(" install ")).toList()
            : List.of();
    assertThat(String.join("\n", installs), installs.size(), is(1));
  }

  /**
   * Launchers started together on a checkout with nothing to build still take the lock one at a
   * time (to check), but none says it waits for a build: the message is for a build that happens.
   * Here the test holds the lock, as a launcher checking would, while one starts.
   */
  @Test
  void aLauncherWaitingOnACheckSaysNothingOfABuild(@TempDir Path dir) throws Exception {
    Path checkout = dir.resolve("checkout");
    Path target = Files.createDirectories(checkout.resolve("cli/target"));
    Files.createDirectories(checkout.resolve("cli/src/main/java"));
    Files.copy(ROOT.resolve("streamform"), checkout.resolve("streamform"));
    Instant old = Instant.now().minusSeconds(7200);
    Path pom = Files.writeString(checkout.resolve("cli/pom.xml"), "<project/>\n");
    Path source =
        Files.writeString(checkout.resolve("cli/src/main/java/Old.java"), "class Old {}\n");
    Files.setLastModifiedTime(pom, FileTime.from(old));
    Files.setLastModifiedTime(source, FileTime.from(old));
    Files.setLastModifiedTime(checkout.resolve("streamform"), FileTime.from(old));
    // built by the launcher an hour ago, its class paths written after
    for (String built :
        List.of(
            "streamform-cli-0.1.0-SNAPSHOT.jar",
            ".launcher-installed",
            "runtime-classpath.txt",
            "runtime-classpath-direct.txt")) {
      Path f = Files.writeString(target.resolve(built), "/no/such.jar\n");
      Files.setLastModifiedTime(f, FileTime.from(Instant.now().minusSeconds(3600)));
    }
    Path bin = standInMaven(dir);
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\necho streamform 0.1.0\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path log = dir.resolve("mvn.log");

    Process holder =
        new ProcessBuilder("flock", target.resolve(".launcher.lock").toString(), "sleep", "2")
            .start();
    Thread.sleep(500); // holding it
    ProcessBuilder pb =
        new ProcessBuilder("bash", checkout.resolve("streamform").toString(), "--version")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher.out").toFile());
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("MVN_LOG", log.toString());
    pb.environment().put("STREAMFORM_NO_CDS", "1");
    Process launcher = pb.start();
    assertThat(launcher.waitFor(60, TimeUnit.SECONDS), is(true));
    holder.waitFor(10, TimeUnit.SECONDS);
    String said = Files.readString(dir.resolve("launcher.out"));
    assertThat(said, launcher.exitValue(), is(0));
    assertThat(said, not(containsString("waiting for another streamform")));
    assertThat(said, containsString("streamform 0.1.0"));
    assertThat("no build: " + said, Files.exists(log), is(false));
  }

  /** A stand-in {@code mvn} in {@code dir/bin} that logs each call; "install" takes two seconds. */
  private static Path standInMaven(Path dir) throws java.io.IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(
        mvn,
        """
        #!/usr/bin/env bash
        echo "$*" >> "$MVN_LOG"
        case "$*" in
          *" install "*) sleep 2 ;;
          *build-classpath*)
            for a in "$@"; do
              case "$a" in -Dmdep.outputFile=*) echo /no/such.jar > "${a#-Dmdep.outputFile=}" ;; esac
            done ;;
        esac
        """);
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }
}
