# The Triton model repository as an image, copied into each Triton pod by its initContainer
# (triton-deployment.yaml). Build context: the folder deploy/triton/make-model-repository.sh wrote.
#   deploy/triton/make-model-repository.sh dist/triton-models
#   docker build -f deploy/kubernetes-triton/model-repository.Dockerfile -t <registry>/sightline-triton-models:<tag> dist/triton-models
# busybox for `cp`; the files belong to root and are readable by Triton's user (1000).
FROM busybox:1.37
COPY . /models/
USER 1000:1000
