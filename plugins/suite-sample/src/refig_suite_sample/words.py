"""The vocabulary of generated figures: plausible machine-learning pipeline words."""

from __future__ import annotations

#: Box labels, grouped by role so a figure can colour them consistently.
NODE_WORDS: dict[str, tuple[str, ...]] = {
    "input": (
        "Input Image", "Input Text", "Query", "Prompt", "Video Frames", "Point Cloud",
        "Audio Clip", "User Request", "Source Code", "Graph Input", "Image Patches",
        "Document", "Observation", "Noisy Latent",
    ),
    "encoder": (
        "Encoder", "Image Encoder", "Text Encoder", "Vision Transformer", "ResNet Backbone",
        "Patch Embedding", "Tokenizer", "Graph Encoder", "Audio Encoder", "Feature Extractor",
        "Positional Encoding", "Embedding Layer", "CNN Backbone", "Q-Former",
    ),
    "block": (
        "Cross-Attention", "Self-Attention", "Feed Forward", "Layer Norm", "Fusion Module",
        "Adapter", "Pooling", "MLP", "Message Passing", "Gated Unit", "Mixture of Experts",
        "Transformer Block", "Projection Head", "Memory Bank", "Router", "Denoiser", "U-Net",
        "Retriever", "Reranker", "Planner", "Critic", "Refinement", "Aggregator",
    ),
    "decoder": (
        "Decoder", "LLM", "Text Decoder", "VAE Decoder", "Detection Head", "Segmentation Head",
        "Classifier", "Policy Network", "Value Head", "Generator", "Answer Head",
        "Language Model", "Mask Decoder",
    ),
    "output": (
        "Prediction", "Output Mask", "Answer", "Generated Image", "Caption", "Action",
        "Bounding Boxes", "Final Output", "Response", "Reconstruction", "Class Scores",
    ),
    "loss": (
        "Loss", "Contrastive Loss", "Cross-Entropy", "Reconstruction Loss", "KL Divergence",
        "Distillation Loss", "Reward Model", "Alignment Loss", "Discriminator",
    ),
}

#: Roles in the order a pipeline tends to use them, left to right.
ROLE_ORDER = ("input", "encoder", "block", "decoder", "output", "loss")

#: Labels drawn as glyphs (stacks of feature maps, rows of tokens) with the label underneath.
GLYPH_WORDS: dict[str, tuple[str, ...]] = {
    "stack": ("Feature Maps", "Multi-scale Features", "Latent Features", "Activation Maps"),
    "tokens": ("Visual Tokens", "Text Tokens", "Query Tokens", "Patch Tokens", "Memory Slots"),
    "cylinder": ("Knowledge Base", "Database", "Replay Buffer", "Corpus", "Vector Store"),
}

#: Operator glyphs drawn as small circles.
OPERATORS = ("+", "×", "σ")

GROUP_TITLES = (
    "Transformer Block", "Vision Branch", "Language Branch", "Retrieval Module",
    "Training Only", "Frozen", "Fusion Stage", "Teacher Network", "Student Network",
    "Agent Loop", "Encoder Stack", "Refinement Stage", "Memory Module", "Diffusion Process",
)

PANEL_TITLES = (
    "Pre-training", "Fine-tuning", "Inference", "Training", "Stage 1: Alignment",
    "Stage 2: Instruction Tuning", "Data Construction", "Model Architecture", "Evaluation",
    "Retrieval", "Generation", "Self-Refinement",
)

EDGE_LABELS = (
    "features", "tokens", "gradients", "queries", "keys / values", "logits", "embeddings",
    "feedback", "update", "concat", "top-k", "mask", "reward", "context",
)
