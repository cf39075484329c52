package dev.streamform.cli;

import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.KafkaClientProperties;
import dev.streamform.policies.project.Problem;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.common.utils.Utils;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How a command reaches Kafka ({@code @Mixin KafkaOptions}: run, produce, consume): {@code
 * --bootstrap-servers} and the Kafka client settings, merged from up to three {@code .properties}
 * files, a later one's key winning: the runner profile's {@code kafka.properties=}, the source's
 * {@code kafka.properties:} in {@code sources.yml}, then {@code --kafka-properties}. A value may
 * name environment variables ({@code ${NAME}}) and files ({@code ${file:/PATH:KEY}}); every one
 * must resolve here before anything starts. A secret is such a reference in every one of the files:
 * written out, it would travel in the job a cluster stores and in its savepoints.
 */
abstract class KafkaOptions {
  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT",
      description =
          "the Kafka brokers, e.g. 127.0.0.1:9092 (default: bootstrap.servers of the"
              + " Kafka client settings)")
  String bootstrapServers;

  private static final String SETTINGS =
      "Kafka client settings (security.protocol, sasl.*, ssl.*, any consumer, producer or admin"
          + " property)";

  private static final String REFERENCES =
      "; a secret is a reference: an environment variable $${NAME} or a file"
          + " $${file:/PATH:KEY}";

  /** {@code --kafka-properties}, whose help says which other files the command reads. */
  abstract Path propertiesFile();

  /** {@code run}: the profile's and the source's files, then this one. */
  static final class OnProfileAndSource extends KafkaOptions {
    @Option(
        names = "--kafka-properties",
        paramLabel = "FILE",
        description =
            SETTINGS
                + ", on top of the settings of the runner profile and of the source (their"
                + " kafka.properties)"
                + REFERENCES)
    Path propertiesFile;

    @Override
    Path propertiesFile() {
      return propertiesFile;
    }
  }

  /** A command on a project (produce, gates, compare-generations): the source's file, then this. */
  static final class OnSource extends KafkaOptions {
    @Option(
        names = "--kafka-properties",
        paramLabel = "FILE",
        description =
            SETTINGS
                + ", on top of the source's kafka.properties: in sources.yml (runner"
                + " profiles are not read)"
                + REFERENCES)
    Path propertiesFile;

    @Override
    Path propertiesFile() {
      return propertiesFile;
    }
  }

  /** {@code consume}, which has no project and no profile: this file only. */
  static final class Only extends KafkaOptions {
    @Option(
        names = "--kafka-properties",
        paramLabel = "FILE",
        description =
            SETTINGS + ", the only ones this command reads (no project, no profile)" + REFERENCES)
    Path propertiesFile;

    @Override
    Path propertiesFile() {
      return propertiesFile;
    }
  }

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * Refuses a broker of {@code --bootstrap-servers} that is not HOST:PORT, parsed as Kafka's client
   * parses bootstrap.servers: it said "Invalid url in bootstrap.servers", exit 1, as if the Kafka
   * client settings were wrong.
   */
  private void refuseBadServers() {
    if (bootstrapServers == null) {
      return;
    }
    if (!bootstrapServers.isBlank() && bootstrapServers.replace(",", "").isBlank()) {
      // Kafka's client said "No resolvable bootstrap urls", exit 1, blamed on the settings
      throw new ParameterException(
          command.commandLine(),
          "--bootstrap-servers '"
              + bootstrapServers
              + "' names no broker: give each broker as HOST:PORT, e.g. 127.0.0.1:9092");
    }
    for (String broker : bootstrapServers.trim().split("\\s*,\\s*")) {
      if (broker.isEmpty()) {
        continue;
      }
      Integer port = Utils.getPort(broker);
      if (Utils.getHost(broker) == null || port == null || port < 1 || port > 65535) {
        throw new ParameterException(
            command.commandLine(),
            "--bootstrap-servers "
                + bootstrapServers
                + ": '"
                + broker
                + "' is not HOST:PORT (a port is 1–65535); give each broker as HOST:PORT, e.g."
                + " 127.0.0.1:9092");
      }
    }
  }

  /**
   * The connection these options, {@code profileFile} (a runner profile's kafka.properties, may be
   * null) and {@code source} (read from the project in {@code projectDir}, may be null) give; empty
   * after printing each problem (file, line, fix) or the unset variable to {@code err}.
   */
  Optional<KafkaConnection> connection(
      Path profileFile, Path projectDir, SourceDeclaration source, PrintWriter err) {
    String name = command.qualifiedName();
    refuseBadServers();
    try {
      KafkaClientProperties settings = KafkaClientProperties.none();
      if (profileFile != null) {
        settings =
            settings.overriddenBy(KafkaClientProperties.read(profileFile, profileFile.toString()));
      }
      if (source != null && source.kafkaProperties().isPresent()) {
        String file = source.kafkaProperties().get();
        settings =
            settings.overriddenBy(KafkaClientProperties.read(projectDir.resolve(file), file));
      }
      Path propertiesFile = propertiesFile();
      if (propertiesFile != null) {
        if (!Files.isRegularFile(propertiesFile)) {
          throw new ParameterException(
              command.commandLine(), "--kafka-properties: " + propertiesFile + " is not a file");
        }
        settings =
            settings.overriddenBy(
                KafkaClientProperties.read(propertiesFile, propertiesFile.toString()));
      }
      String servers = bootstrapServers;
      if (servers == null) {
        Optional<KafkaClientProperties.Setting> fromFile = settings.get("bootstrap.servers");
        if (fromFile.isEmpty()) {
          throw new ParameterException(
              command.commandLine(),
              "--bootstrap-servers is missing (or give bootstrap.servers in the Kafka client"
                  + " settings)");
        }
        servers =
            KafkaClientProperties.resolve(java.util.List.of(fromFile.get()), System::getenv)
                .get("bootstrap.servers");
      }
      KafkaConnection connection = KafkaConnection.of(servers, settings);
      connection.checkEnvironment(); // here, not in a job on a worker minutes later
      // a truststore or keystore that is not there: said with its line, not by Kafka's client
      java.util.List<Problem> files = settings.locationProblems(System::getenv);
      if (!files.isEmpty()) {
        throw new InvalidProjectException(files);
      }
      return Optional.of(connection);
    } catch (InvalidProjectException e) {
      for (Problem problem : e.problems()) {
        err.println(problem);
      }
      err.println(name + ": fix the Kafka client settings above first");
      return Optional.empty();
    } catch (KafkaClientProperties.UnsetVariableException e) {
      err.println(name + ": " + e.getMessage());
      return Optional.empty();
    }
  }
}
