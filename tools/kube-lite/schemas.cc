// The field names of the kinds kube-lite checks (field_validation.h), as the real API
// defines them. One type per line: `Type field:T ...`; T is s (string), i (integer),
// b (boolean), n (number), q (integer or string: ports, quantities), * (anything: parts
// kube-lite does not check), [T] a list, {T} a map, or a type name. `kind GROUP/VERSION
// Kind Type` names the type of a kind; its apiVersion, kind and metadata are implied.
#include "tools/kube-lite/field_validation.h"

namespace weft::kube_lite {

const char* const kSchemaText = R"(
ObjectMeta name:s generateName:s namespace:s uid:s resourceVersion:s generation:i creationTimestamp:s deletionTimestamp:s deletionGracePeriodSeconds:i labels:{s} annotations:{s} ownerReferences:[OwnerReference] finalizers:[s] managedFields:[*] selfLink:s
OwnerReference apiVersion:s kind:s name:s uid:s controller:b blockOwnerDeletion:b
LabelSelector matchLabels:{s} matchExpressions:[LabelSelectorRequirement]
LabelSelectorRequirement key:s operator:s values:[s]

ConfigMap data:{s} binaryData:{s} immutable:b
Namespace spec:NamespaceSpec status:*
NamespaceSpec finalizers:[s]
ServiceAccount secrets:[*] imagePullSecrets:[*] automountServiceAccountToken:b
Lease spec:LeaseSpec
LeaseSpec holderIdentity:s leaseDurationSeconds:i acquireTime:s renewTime:s leaseTransitions:i strategy:s preferredHolder:s

Role rules:[PolicyRule]
ClusterRole rules:[PolicyRule] aggregationRule:AggregationRule
AggregationRule clusterRoleSelectors:[LabelSelector]
PolicyRule verbs:[s] apiGroups:[s] resources:[s] resourceNames:[s] nonResourceURLs:[s]
RoleBinding subjects:[Subject] roleRef:RoleRef
RoleRef apiGroup:s kind:s name:s
Subject kind:s apiGroup:s name:s namespace:s

DaemonSet spec:DaemonSetSpec status:*
DaemonSetSpec selector:LabelSelector template:PodTemplateSpec updateStrategy:DaemonSetUpdateStrategy minReadySeconds:i revisionHistoryLimit:i
DaemonSetUpdateStrategy type:s rollingUpdate:RollingUpdateDaemonSet
RollingUpdateDaemonSet maxUnavailable:q maxSurge:q
Deployment spec:DeploymentSpec status:*
DeploymentSpec replicas:i selector:LabelSelector template:PodTemplateSpec strategy:DeploymentStrategy minReadySeconds:i revisionHistoryLimit:i paused:b progressDeadlineSeconds:i
DeploymentStrategy type:s rollingUpdate:RollingUpdateDeployment
RollingUpdateDeployment maxUnavailable:q maxSurge:q
Job spec:JobSpec status:*
JobSpec parallelism:i completions:i activeDeadlineSeconds:i podFailurePolicy:* successPolicy:* backoffLimit:i backoffLimitPerIndex:i maxFailedIndexes:i selector:LabelSelector manualSelector:b template:PodTemplateSpec ttlSecondsAfterFinished:i completionMode:s suspend:b podReplacementPolicy:s managedBy:s
CronJob spec:CronJobSpec status:*
CronJobSpec schedule:s timeZone:s startingDeadlineSeconds:i concurrencyPolicy:s suspend:b jobTemplate:JobTemplateSpec successfulJobsHistoryLimit:i failedJobsHistoryLimit:i
JobTemplateSpec metadata:ObjectMeta spec:JobSpec

PodTemplateSpec metadata:ObjectMeta spec:PodSpec
PodSpec volumes:[Volume] initContainers:[Container] containers:[Container] ephemeralContainers:[*] restartPolicy:s terminationGracePeriodSeconds:i activeDeadlineSeconds:i dnsPolicy:s nodeSelector:{s} serviceAccountName:s serviceAccount:s automountServiceAccountToken:b nodeName:s hostNetwork:b hostPID:b hostIPC:b shareProcessNamespace:b securityContext:PodSecurityContext imagePullSecrets:[*] hostname:s subdomain:s affinity:Affinity schedulerName:s tolerations:[Toleration] hostAliases:[*] priorityClassName:s priority:i dnsConfig:* readinessGates:[*] runtimeClassName:s enableServiceLinks:b preemptionPolicy:s overhead:{q} topologySpreadConstraints:[*] setHostnameAsFQDN:b os:* hostUsers:b schedulingGates:[*] resourceClaims:[*] resources:*
Container name:s image:s command:[s] args:[s] workingDir:s ports:[ContainerPort] envFrom:[*] env:[EnvVar] resources:ResourceRequirements resizePolicy:[*] restartPolicy:s volumeMounts:[VolumeMount] volumeDevices:[*] livenessProbe:Probe readinessProbe:Probe startupProbe:Probe lifecycle:* terminationMessagePath:s terminationMessagePolicy:s imagePullPolicy:s securityContext:SecurityContext stdin:b stdinOnce:b tty:b
ContainerPort name:s hostPort:i containerPort:i protocol:s hostIP:s
EnvVar name:s value:s valueFrom:EnvVarSource
EnvVarSource fieldRef:ObjectFieldSelector resourceFieldRef:* configMapKeyRef:* secretKeyRef:*
ObjectFieldSelector apiVersion:s fieldPath:s
ResourceRequirements limits:{q} requests:{q} claims:[*]
VolumeMount name:s readOnly:b recursiveReadOnly:s mountPath:s subPath:s mountPropagation:s subPathExpr:s
Probe exec:ExecAction httpGet:HTTPGetAction tcpSocket:TCPSocketAction grpc:* initialDelaySeconds:i timeoutSeconds:i periodSeconds:i successThreshold:i failureThreshold:i terminationGracePeriodSeconds:i
ExecAction command:[s]
HTTPGetAction path:s port:q host:s scheme:s httpHeaders:[*]
TCPSocketAction port:q host:s
SecurityContext capabilities:Capabilities privileged:b seLinuxOptions:* windowsOptions:* runAsUser:i runAsGroup:i runAsNonRoot:b readOnlyRootFilesystem:b allowPrivilegeEscalation:b procMount:s seccompProfile:SeccompProfile appArmorProfile:*
Capabilities add:[s] drop:[s]
SeccompProfile type:s localhostProfile:s
PodSecurityContext seLinuxOptions:* windowsOptions:* runAsUser:i runAsGroup:i runAsNonRoot:b supplementalGroups:[i] supplementalGroupsPolicy:s fsGroup:i sysctls:[*] fsGroupChangePolicy:s seccompProfile:SeccompProfile appArmorProfile:* seLinuxChangePolicy:s
Toleration key:s operator:s value:s effect:s tolerationSeconds:i
Affinity nodeAffinity:* podAffinity:PodAffinity podAntiAffinity:PodAffinity
PodAffinity requiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm] preferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]
WeightedPodAffinityTerm weight:i podAffinityTerm:PodAffinityTerm
PodAffinityTerm labelSelector:LabelSelector namespaces:[s] topologyKey:s namespaceSelector:LabelSelector matchLabelKeys:[s] mismatchLabelKeys:[s]
Volume name:s hostPath:HostPathVolumeSource emptyDir:EmptyDirVolumeSource secret:SecretVolumeSource configMap:ConfigMapVolumeSource projected:* persistentVolumeClaim:* downwardAPI:* csi:* ephemeral:* image:* nfs:*
HostPathVolumeSource path:s type:s
EmptyDirVolumeSource medium:s sizeLimit:q
SecretVolumeSource secretName:s items:[KeyToPath] defaultMode:i optional:b
ConfigMapVolumeSource name:s items:[KeyToPath] defaultMode:i optional:b
KeyToPath key:s path:s mode:i

ValidatingAdmissionPolicy spec:ValidatingAdmissionPolicySpec status:*
ValidatingAdmissionPolicySpec paramKind:ParamKind matchConstraints:MatchResources validations:[Validation] failurePolicy:s auditAnnotations:[*] matchConditions:[MatchCondition] variables:[Variable]
ParamKind apiVersion:s kind:s
MatchResources namespaceSelector:LabelSelector objectSelector:LabelSelector resourceRules:[NamedRuleWithOperations] excludeResourceRules:[NamedRuleWithOperations] matchPolicy:s
NamedRuleWithOperations resourceNames:[s] operations:[s] apiGroups:[s] apiVersions:[s] resources:[s] scope:s
Validation expression:s message:s reason:s messageExpression:s
MatchCondition name:s expression:s
Variable name:s expression:s
ValidatingAdmissionPolicyBinding spec:ValidatingAdmissionPolicyBindingSpec
ValidatingAdmissionPolicyBindingSpec policyName:s paramRef:ParamRef matchResources:MatchResources validationActions:[s]
ParamRef name:s namespace:s selector:LabelSelector parameterNotFoundAction:s

PodMonitor spec:PodMonitorSpec
PodMonitorSpec jobLabel:s podTargetLabels:[s] podMetricsEndpoints:[PodMetricsEndpoint] selector:LabelSelector selectorMechanism:s namespaceSelector:NamespaceSelector sampleLimit:i targetLimit:i labelLimit:i labelNameLengthLimit:i labelValueLengthLimit:i keepDroppedTargets:i attachMetadata:* scrapeClass:s scrapeProtocols:[s] fallbackScrapeProtocol:s bodySizeLimit:s nativeHistogramBucketLimit:i nativeHistogramMinBucketFactor:q scrapeClassicHistograms:b convertClassicHistogramsToNHCB:b
NamespaceSelector any:b matchNames:[s]
PodMetricsEndpoint port:s portNumber:i targetPort:q path:s scheme:s params:* interval:s scrapeTimeout:s honorLabels:b honorTimestamps:b trackTimestampsStaleness:b metricRelabelings:[RelabelConfig] relabelings:[RelabelConfig] proxyUrl:s filterRunning:b enableHttp2:b followRedirects:b basicAuth:* bearerTokenSecret:* authorization:* oauth2:* tlsConfig:* noProxy:s proxyFromEnvironment:b proxyConnectHeader:*
RelabelConfig sourceLabels:[s] separator:s targetLabel:s regex:s modulus:i replacement:s action:s

kind v1 ConfigMap ConfigMap
kind v1 Namespace Namespace
kind v1 ServiceAccount ServiceAccount
kind coordination.k8s.io/v1 Lease Lease
kind rbac.authorization.k8s.io/v1 Role Role
kind rbac.authorization.k8s.io/v1 ClusterRole ClusterRole
kind rbac.authorization.k8s.io/v1 RoleBinding RoleBinding
kind rbac.authorization.k8s.io/v1 ClusterRoleBinding RoleBinding
kind apps/v1 DaemonSet DaemonSet
kind apps/v1 Deployment Deployment
kind batch/v1 Job Job
kind batch/v1 CronJob CronJob
kind admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy ValidatingAdmissionPolicy
kind admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBinding
kind monitoring.coreos.com/v1 PodMonitor PodMonitor
)";

}  // namespace weft::kube_lite
