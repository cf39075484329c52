package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the launcher ({@code ./streamform}) puts on the class path of a checkout it built, and when
 * it writes the class-data archive again. Run on a copy of the launcher in a stand-in checkout,
 * with a stand-in {@code mvn} and {@code java} on the PATH that log their calls.
 */
class LauncherClassPathTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String CORE = "streamform-core-0.1.0-SNAPSHOT.jar";

  /**
   * Another checkout of Streamform on the machine installs its own build of the same snapshot into
   * the local repository; this checkout's runs still load this checkout's modules.
   */
  @Test
  void streamformsOwnModulesComeFromThisCheckoutsBuild(@TempDir Path dir) throws Exception {
    Path checkout = builtCheckout(dir);
    Path own = Files.writeString(checkout.resolve("core/target/" + CORE), "this checkout's");
    Files.setLastModifiedTime(own, FileTime.from(Instant.now().minusSeconds(3600)));

    String java = launch(dir, checkout);

    assertThat(java, containsString(own.toString()));
    assertThat(java, not(containsString(repositoryCore(dir).toString())));
  }

  /**
   * A jar of the archive's class path changed since the archive was written (here a dependency
   * rebuilt and installed by another checkout): the JVM would ignore the archive without a word, so
   * the launcher writes it again.
   */
  @Test
  void theArchiveIsWrittenAgainWhenAJarOfItsClassPathChanged(@TempDir Path dir) throws Exception {
    Path checkout = builtCheckout(dir);
    launch(dir, checkout); // orders the class path and writes the archive
    Path archive = checkout.resolve("cli/target/streamform-classes.jsa");
    assertThat(Files.exists(archive), is(true));
    Files.writeString(dir.resolve("java.log"), "");
    assertThat(
        "nothing changed, nothing written",
        launch(dir, checkout),
        not(containsString("ArchiveClassesAtExit")));

    Files.setLastModifiedTime(repositoryCore(dir), FileTime.from(Instant.now().plusSeconds(5)));
    assertThat(launch(dir, checkout), containsString("-XX:ArchiveClassesAtExit="));
  }

  /** A module of this checkout cleaned since its class path was written is built again. */
  @Test
  void aCleanedModuleIsBuiltAgain(@TempDir Path dir) throws Exception {
    Path checkout = builtCheckout(dir);
    Path own = Files.writeString(checkout.resolve("core/target/" + CORE), "this checkout's");
    Files.setLastModifiedTime(own, FileTime.from(Instant.now().minusSeconds(3600)));
    launch(dir, checkout);
    Files.delete(own);

    launch(dir, checkout);

    assertThat(Files.readString(dir.resolve("mvn.log")), containsString(" install "));
  }

  /**
   * A checkout the launcher built an hour ago: its command line's jar, the install stamp and a
   * class path naming Streamform's core in a stand-in local repository ({@code dir/m2}).
   */
  private static Path builtCheckout(Path dir) throws IOException {
    Path checkout = dir.resolve("checkout");
    Path target = Files.createDirectories(checkout.resolve("cli/target"));
    Files.createDirectories(checkout.resolve("cli/src/main/java"));
    Files.createDirectories(checkout.resolve("core/target"));
    Files.copy(ROOT.resolve("streamform"), checkout.resolve("streamform"));
    Instant old = Instant.now().minusSeconds(7200);
    Path pom = Files.writeString(checkout.resolve("cli/pom.xml"), "<project/>\n");
    Path source =
        Files.writeString(checkout.resolve("cli/src/main/java/Old.java"), "class Old {}\n");
    Files.setLastModifiedTime(pom, FileTime.from(old));
    Files.setLastModifiedTime(source, FileTime.from(old));
    Path core = repositoryCore(dir);
    Files.createDirectories(core.getParent());
    Files.writeString(core, "the repository's");
    Files.setLastModifiedTime(core, FileTime.from(old));
    for (String built :
        new String[] {
          "streamform-cli-0.1.0-SNAPSHOT.jar",
          ".launcher-installed",
          "runtime-classpath.txt",
          "runtime-classpath-direct.txt"
        }) {
      Path f = Files.writeString(target.resolve(built), core + "\n");
      Files.setLastModifiedTime(f, FileTime.from(Instant.now().minusSeconds(3600)));
    }
    return checkout;
  }

  private static Path repositoryCore(Path dir) {
    return dir.resolve("m2/dev/streamform/streamform-core/0.1.0-SNAPSHOT/" + CORE);
  }

  /** Runs {@code streamform --version}; returns the stand-in java's log of this run. */
  private static String launch(Path dir, Path checkout) throws Exception {
    Path bin = standIns(dir);
    Path log = dir.resolve("java.log");
    if (Files.exists(log)) {
      Files.writeString(log, "");
    }
    ProcessBuilder pb =
        new ProcessBuilder("bash", checkout.resolve("streamform").toString(), "--version")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher.out").toFile());
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("MVN_LOG", dir.resolve("mvn.log").toString());
    pb.environment().put("JAVA_LOG", log.toString());
    pb.environment().remove("STREAMFORM_NO_CDS");
    Process launcher = pb.start();
    assertThat(launcher.waitFor(60, TimeUnit.SECONDS), is(true));
    String said = Files.readString(dir.resolve("launcher.out"));
    assertThat(said, launcher.exitValue(), is(0));
    return Files.readString(log);
  }

  /**
   * A stand-in {@code mvn} that logs each call ("install" touches the jars it would build) and a
   * stand-in {@code java} that logs its arguments and writes the archive it is asked for.
   */
  private static Path standIns(Path dir) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(
        mvn,
        """
        #!/usr/bin/env bash
        echo "$*" >> "$MVN_LOG"
        case "$*" in
          *" install "*) touch cli/target/streamform-cli-0.1.0-SNAPSHOT.jar
                         touch core/target/streamform-core-0.1.0-SNAPSHOT.jar ;;
          *build-classpath*)
            for a in "$@"; do
              case "$a" in
                -Dmdep.outputFile=*) echo "$(dirname "$PWD")/m2/dev/streamform/streamform-core/0.1.0-SNAPSHOT/streamform-core-0.1.0-SNAPSHOT.jar" > "${a#-Dmdep.outputFile=}" ;;
              esac
            done ;;
        esac
        """);
    Path java = bin.resolve("java");
    Files.writeString(
        java,
        """
        #!/usr/bin/env bash
        echo "$*" >> "$JAVA_LOG"
        for a in "$@"; do
          case "$a" in -XX:ArchiveClassesAtExit=*) echo archive > "${a#-XX:ArchiveClassesAtExit=}" ;; esac
        done
        echo streamform 0.1.0
        """);
    for (Path p : new Path[] {mvn, java}) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return bin;
  }
}
