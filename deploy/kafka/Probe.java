// Readiness probe used by kafka.sh when no Python with kafka-python is available.
// Run with the JDK source launcher:  java -cp '.kafka/libs/*' deploy/kafka/Probe.java HOST:PORT SECONDS
// Exits 0 once a DescribeCluster round trip returns at least one broker, 1 after SECONDS.
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;

public class Probe {
    public static void main(String[] args) throws Exception {
        // No connection-refused WARN spam while the broker starts. The source launcher loads this class in its
        // own class loader, so quiet the log4j2 context of the Kafka classes, not this class's.
        LoggerContext ctx = (LoggerContext) LogManager.getContext(Admin.class.getClassLoader(), false);
        ctx.getConfiguration().getRootLogger().setLevel(Level.ERROR);
        ctx.updateLoggers();
        String addr = args[0];
        long deadline = System.currentTimeMillis() + (long) (Double.parseDouble(args[1]) * 1000);
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, addr);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "kafka.sh-probe");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        String last = "";
        while (true) {
            try (Admin admin = Admin.create(p)) {
                DescribeClusterResult r = admin.describeCluster();
                if (!r.nodes().get().isEmpty()) {
                    System.exit(0);
                }
                last = "no brokers in metadata";
            } catch (Exception e) {
                last = e.toString();
            }
            if (System.currentTimeMillis() >= deadline) {
                System.err.println("probe failed: " + last);
                System.exit(1);
            }
            Thread.sleep(500);
        }
    }
}
