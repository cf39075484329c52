package dev.streamform.pipelines.kafka;

import dev.streamform.policies.project.KafkaClientProperties;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * A Kafka cluster could not be used — not reachable, or it refused the credentials or the TLS
 * handshake — said in one line for a person: what was tried, at which servers, Kafka's own reason,
 * and what to check. The message never holds a setting's value (Kafka's messages name mechanisms
 * and users, not passwords). The command line prints it without a stack trace.
 */
public final class KafkaRefusedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private KafkaRefusedException(String message, Throwable cause) {
    super(message, cause);
  }

  /** {@code what} failed at {@code connection} because of {@code e}. */
  public static KafkaRefusedException of(String what, KafkaConnection connection, Throwable e) {
    KafkaRefusedException raw = unscrubbed(what, connection, e);
    // Kafka's messages may quote a piece of a setting (a JAAS parse error names the word it could
    // not read, which may be a piece of a password): none of a resolved secret is shown
    KafkaRefusedException clean =
        new KafkaRefusedException(connection.scrubbed(raw.getMessage()), null);
    clean.setStackTrace(raw.getCause().getStackTrace());
    return clean;
  }

  private static KafkaRefusedException unscrubbed(
      String what, KafkaConnection connection, Throwable e) {
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    String at = "cannot " + what + " at " + connection.bootstrapServers() + ": ";
    String reason =
        cause.getMessage() == null
            ? cause.getClass().getSimpleName()
            : firstLine(cause.getMessage());
    String hint;
    if (cause instanceof SaslAuthenticationException) {
      hint =
          "the broker refused the credentials: check sasl.mechanism and the username and password"
              + " in sasl.jaas.config (and the environment variables it names)";
    } else if (cause instanceof SslAuthenticationException) {
      Throwable root = cause;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      reason =
          reason + (root == cause ? "" : " (" + firstLine(String.valueOf(root.getMessage())) + ")");
      hint =
          "the TLS handshake failed: check ssl.truststore.* (does it trust the broker's"
              + " certificate?) and that the servers' names match the certificate";
    } else if (cause instanceof AuthenticationException) {
      hint =
          "the broker refused to authenticate this client: check security.protocol and the sasl.*"
              + " settings";
    } else if (cause instanceof AuthorizationException) {
      hint =
          "the user is not allowed to do this: ask for the ACLs on the topics Streamform reads and"
              + " writes";
    } else if (cause instanceof TimeoutException
        || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
      hint =
          connection.isPlaintext()
              ? "is the broker running (runners-config/bin/kafka start)? a TLS or SASL listener"
                  + " needs --kafka-properties or kafka.properties: with security.protocol"
              : "is the broker running, and does security.protocol match its listener?";
    } else if (cause instanceof org.apache.kafka.common.KafkaException
        && !(cause instanceof org.apache.kafka.common.errors.ApiException)) {
      // raised while a client is created: a setting Kafka cannot use (a missing truststore, ...)
      Throwable root = cause;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      reason =
          reason + (root == cause ? "" : " (" + firstLine(String.valueOf(root.getMessage())) + ")");
      hint = "check the Kafka client settings (--kafka-properties, kafka.properties:)";
      String chain = messages(cause);
      if (chain.contains("No resolvable bootstrap urls")) {
        // the servers, not the settings file: the host names do not resolve (or none is given)
        hint =
            "no broker host of --bootstrap-servers resolves ("
                + String.join(", ", unresolved(connection.bootstrapServers()))
                + "): check the host names in --bootstrap-servers (or in bootstrap.servers, where"
                + " it is set), and this machine's DNS";
      }
      java.util.Optional<KafkaClientProperties.Setting> jaas =
          connection.setting("sasl.jaas.config");
      java.util.Optional<KafkaClientProperties.Setting> store = store(connection, chain);
      if (jaas.isPresent() && chain.contains("JAAS")) {
        hint =
            "sasl.jaas.config ("
                + jaas.get().origin()
                + ") is not JAAS that Kafka can read once its references are resolved: write"
                + " <LoginModule class> required name=\"value\" ...; with each value in double"
                + " quotes";
      } else if (store.isPresent()) {
        KafkaClientProperties.Setting s = store.get();
        String type = s.key().replace(".location", ".type");
        hint =
            s.key()
                + " ("
                + s.origin()
                + ") names "
                + KafkaClientProperties.resolve(List.of(s), System::getenv).get(s.key())
                + ", which Kafka cannot load: give a readable "
                + (s.key().contains("truststore") ? "truststore" : "keystore")
                + " in the format "
                + type
                + " says ("
                + connection.setting(type).map(t -> t.value()).orElse("JKS, Kafka's default")
                + "; PEM is -----BEGIN CERTIFICATE----- blocks)";
      }
    } else {
      hint = "is the broker running (runners-config/bin/kafka start)?";
    }
    return new KafkaRefusedException(at + reason + " — " + hint, cause);
  }

  /**
   * The hosts of {@code servers} that do not resolve here; every host when all of them do now (a
   * lookup that failed a moment ago).
   */
  static List<String> unresolved(String servers) {
    List<String> hosts = new java.util.ArrayList<>();
    for (String broker : servers.trim().split("\\s*,\\s*")) {
      if (broker.isBlank()) {
        continue;
      }
      String host = org.apache.kafka.common.utils.Utils.getHost(broker);
      hosts.add(host == null ? broker : host);
    }
    List<String> unresolved = new java.util.ArrayList<>();
    for (String host : hosts) {
      try {
        java.net.InetAddress.getAllByName(host);
      } catch (java.net.UnknownHostException | SecurityException e) {
        unresolved.add(host);
      }
    }
    return unresolved.isEmpty() ? hosts : unresolved;
  }

  /** Every message of {@code e} and its causes. */
  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      all.append(c.getMessage()).append('\n');
    }
    return all.toString();
  }

  /**
   * The truststore or keystore setting Kafka's error is about: the one whose file it names, else
   * the only one given when the error speaks of a store, PEM or certificate.
   */
  private static java.util.Optional<KafkaClientProperties.Setting> store(
      KafkaConnection connection, String chain) {
    List<KafkaClientProperties.Setting> given = new java.util.ArrayList<>();
    for (String key : KafkaClientProperties.LOCATIONS) {
      connection.setting(key).ifPresent(given::add);
    }
    String lower = chain.toLowerCase(java.util.Locale.ROOT);
    for (KafkaClientProperties.Setting s : given) {
      String location;
      try {
        location = KafkaClientProperties.resolve(List.of(s), System::getenv).get(s.key());
      } catch (IllegalStateException e) {
        continue;
      }
      String store = s.key().contains("truststore") ? "truststore" : "keystore";
      if (chain.contains(location) || lower.contains(store)) {
        return java.util.Optional.of(s);
      }
    }
    boolean aboutStores =
        lower.contains("pem") || lower.contains("certificate") || lower.contains("ssl");
    return aboutStores && given.size() == 1
        ? java.util.Optional.of(given.get(0))
        : java.util.Optional.empty();
  }

  private static String firstLine(String text) {
    int eol = text.indexOf('\n');
    return eol < 0 ? text : text.substring(0, eol);
  }
}
