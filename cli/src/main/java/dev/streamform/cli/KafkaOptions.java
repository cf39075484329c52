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
final class KafkaOptions {
  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT",
      description =
          "the Kafka brokers, e.g. 127.0.0.1:9092 (default: bootstrap.servers of the"
              + " Kafka client settings)")
  String bootstrapServers;

  @Option(
      names = "--kafka-properties",
      paramLabel = "FILE",
      description =
          "Kafka client settings (security.protocol, sasl.*, ssl.*, any consumer, producer or admin"
              + " property), on top of the profile's and the source's kafka.properties; a secret is"
              + " a reference: an environment variable $${NAME} or a file $${file:/PATH:KEY}")
  Path propertiesFile;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * The connection these options, {@code profileFile} (a runner profile's kafka.properties, may be
   * null) and {@code source} (read from the project in {@code projectDir}, may be null) give; empty
   * after printing each problem (file, line, fix) or the unset variable to {@code err}.
   */
  Optional<KafkaConnection> connection(
      Path profileFile, Path projectDir, SourceDeclaration source, PrintWriter err) {
    String name = command.qualifiedName();
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
