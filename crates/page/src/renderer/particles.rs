//! The particle animation's GPU side: live particles as one instanced draw, faded particles splatted into a
//! history texture (rgb = sum of colours, a = density; additive blending), and the history drawn under the
//! particles as one full-screen tone-mapped pass. Only the live window and the frame's new splats are
//! uploaded; the history stays on the GPU. Three draw calls per frame whatever the number of particles.
//! Knows instance arrays and textures, nothing of traces.

use weft_view::scene::particles::{ParticleInstance, ParticleLayer};
use wgpu::util::DeviceExt;

/// The history texture's format: 16-bit float, renderable and blendable on WebGPU and on WebGL2 with
/// EXT_color_buffer_float (checked at start-up by [`ParticleRenderer::supported`]).
const HISTORY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ParticleGlobals {
    size: [f32; 2],
    dpr: f32,
    min_opacity: f32,
    max_density: f32,
    _pad: [f32; 3],
}

struct Growable {
    buffer: wgpu::Buffer,
    capacity: usize,
}

impl Growable {
    fn new(device: &wgpu::Device) -> Self {
        Growable { buffer: Self::alloc(device, 4096), capacity: 4096 }
    }
    fn alloc(device: &wgpu::Device, n: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("particles"),
            size: (n * std::mem::size_of::<ParticleInstance>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }
    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, items: &[ParticleInstance]) {
        if items.len() > self.capacity {
            self.capacity = items.len().next_power_of_two();
            self.buffer = Self::alloc(device, self.capacity);
        }
        if !items.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(items));
        }
    }
}

pub struct ParticleRenderer {
    particle_pipeline: wgpu::RenderPipeline,
    /// Splat and history pipelines; None where the adapter cannot blend into a half-float texture (the
    /// particles still play, without the history).
    splat_pipeline: Option<wgpu::RenderPipeline>,
    history_pipeline: Option<wgpu::RenderPipeline>,
    screen_globals: wgpu::Buffer,
    splat_globals: wgpu::Buffer,
    screen_group: wgpu::BindGroup,
    splat_group: wgpu::BindGroup,
    texture_layout: wgpu::BindGroupLayout,
    history: Option<(wgpu::Texture, wgpu::TextureView, wgpu::BindGroup, u32, u32)>,
    particles: Growable,
    splats: Growable,
}

impl ParticleRenderer {
    /// Whether the adapter can accumulate the history (a renderable, blendable half-float texture).
    pub fn supported(adapter: &wgpu::Adapter) -> bool {
        let f = adapter.get_texture_format_features(HISTORY_FORMAT);
        f.allowed_usages.contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
            && f.flags.contains(wgpu::TextureFormatFeatureFlags::BLENDABLE)
    }

    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, with_history: bool) -> ParticleRenderer {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("particles.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("particles.wgsl").into()),
        });
        let uniform = |label| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::bytes_of(&ParticleGlobals {
                    size: [1.0, 1.0],
                    dpr: 1.0,
                    min_opacity: 0.1,
                    max_density: 1.0,
                    _pad: [0.0; 3],
                }),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            })
        };
        let (screen_globals, splat_globals) = (uniform("particle globals"), uniform("splat globals"));
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("particle globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("history"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let group = |buffer: &wgpu::Buffer| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("particle globals"),
                layout: &globals_layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
            })
        };
        let (screen_group, splat_group) = (group(&screen_globals), group(&splat_globals));
        let instanced = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles"),
            bind_group_layouts: &[Some(&globals_layout)],
            immediate_size: 0,
        });
        let full_screen = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("history"),
            bind_group_layouts: &[Some(&globals_layout), Some(&texture_layout)],
            immediate_size: 0,
        });
        let attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
        let additive = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        };
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        vs: &str,
                        fs: &str,
                        instances: bool,
                        target: wgpu::TextureFormat,
                        blend: wgpu::BlendState| {
            let buffers = [Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<ParticleInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &attrs,
            })];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: if instances { &buffers } else { &[] },
                },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: target,
                        blend: Some(blend),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                multiview_mask: None,
                cache: None,
            })
        };
        let alpha = wgpu::BlendState::ALPHA_BLENDING;
        ParticleRenderer {
            particle_pipeline: pipeline("particles", &instanced, "particle_vs", "particle_fs", true, format, alpha),
            splat_pipeline: with_history.then(|| {
                pipeline(
                    "splats",
                    &instanced,
                    "splat_vs",
                    "splat_fs",
                    true,
                    HISTORY_FORMAT,
                    wgpu::BlendState { color: additive, alpha: additive },
                )
            }),
            history_pipeline: with_history
                .then(|| pipeline("history", &full_screen, "history_vs", "history_fs", false, format, alpha)),
            screen_globals,
            splat_globals,
            screen_group,
            splat_group,
            texture_layout,
            history: None,
            particles: Growable::new(device),
            splats: Growable::new(device),
        }
    }

    /// Upload the frame's particles and splats, and add the splats to the history (its own render pass,
    /// before the frame's). Returns the draw calls issued.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        layer: &ParticleLayer,
        css_size: (f32, f32),
        dpr: f32,
    ) -> u32 {
        let (w, h) = ((css_size.0.round() as u32).max(1), (css_size.1.round() as u32).max(1));
        let max = device.limits().max_texture_dimension_2d;
        let (w, h) = (w.min(max), h.min(max));
        self.particles.upload(device, queue, layer.particles);
        let Some(splat_pipeline) = &self.splat_pipeline else { return 0 };
        let fresh = !matches!(&self.history, Some((_, _, _, tw, th)) if *tw == w && *th == h);
        if fresh {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("history"),
                size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: HISTORY_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("history"),
                layout: &self.texture_layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) }],
            });
            self.history = Some((texture, view, group, w, h));
        }
        let globals = |size: [f32; 2], dpr: f32| ParticleGlobals {
            size,
            dpr,
            min_opacity: layer.min_opacity,
            max_density: layer.max_density,
            _pad: [0.0; 3],
        };
        queue.write_buffer(&self.screen_globals, 0, bytemuck::bytes_of(&globals([css_size.0, css_size.1], dpr)));
        queue.write_buffer(&self.splat_globals, 0, bytemuck::bytes_of(&globals([w as f32, h as f32], 1.0)));
        self.splats.upload(device, queue, layer.splats);
        let Some((_, view, _, _, _)) = &self.history else { return 0 };
        if layer.splats.is_empty() && !layer.clear_history && !fresh {
            return 0;
        }
        let load = if layer.clear_history || fresh {
            wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
        } else {
            wgpu::LoadOp::Load
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("splats"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                resolve_target: None,
                depth_slice: None,
                ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if layer.splats.is_empty() {
            return 0;
        }
        pass.set_pipeline(splat_pipeline);
        pass.set_bind_group(0, &self.splat_group, &[]);
        pass.set_vertex_buffer(0, self.splats.buffer.slice(..(layer.splats.len() * 16) as u64));
        pass.draw(0..6, 0..layer.splats.len() as u32);
        1
    }

    /// The tone-mapped history, drawn first in the frame's pass (under the shapes).
    pub fn draw_history(&self, pass: &mut wgpu::RenderPass<'_>) -> u32 {
        let (Some((_, _, group, _, _)), Some(pipeline)) = (&self.history, &self.history_pipeline) else { return 0 };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.screen_group, &[]);
        pass.set_bind_group(1, group, &[]);
        pass.draw(0..3, 0..1);
        1
    }

    /// The live particles, drawn last in the frame's pass.
    pub fn draw_particles(&self, pass: &mut wgpu::RenderPass<'_>, count: usize) -> u32 {
        if count == 0 {
            return 0;
        }
        pass.set_pipeline(&self.particle_pipeline);
        pass.set_bind_group(0, &self.screen_group, &[]);
        pass.set_vertex_buffer(0, self.particles.buffer.slice(..(count * 16) as u64));
        pass.draw(0..6, 0..count as u32);
        1
    }
}
