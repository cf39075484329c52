package dev.streamform.pipelines.kafka;

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
    } else {
      hint = "is the broker running (runners-config/bin/kafka start)?";
    }
    return new KafkaRefusedException(at + reason + " — " + hint, cause);
  }

  private static String firstLine(String text) {
    int eol = text.indexOf('\n');
    return eol < 0 ? text : text.substring(0, eol);
  }
}
