//! The renderer: draws a [`Scene`]'s rects and lines with wgpu as two instanced draw calls, on WebGPU or
//! (in the `webgl` build) WebGL2. It knows instance arrays, pipelines and the canvas size, nothing of traces.
//! Labels are not drawn here: the web shell puts them on a 2D overlay canvas.
//! Capability differences between backends live in [`Tier`], nowhere else.

pub mod particles;

use particles::ParticleRenderer;
use weft_view::scene::particles::ParticleLayer;
use weft_view::scene::{LineInstance, RectInstance, Scene};
use wgpu::util::DeviceExt;

/// What the backend in use can do, decided once at start-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    WebGpu,
    WebGl2,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::WebGpu => "WebGPU",
            Tier::WebGl2 => "WebGL2",
        }
    }
    fn limits(self) -> wgpu::Limits {
        match self {
            Tier::WebGpu => wgpu::Limits::downlevel_defaults(),
            Tier::WebGl2 => wgpu::Limits::downlevel_webgl2_defaults(),
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    size: [f32; 2],
    dpr: f32,
    _pad: f32,
}

struct InstanceBuffer {
    buffer: wgpu::Buffer,
    capacity: usize,
    label: &'static str,
}

impl InstanceBuffer {
    fn new(device: &wgpu::Device, label: &'static str) -> Self {
        let capacity = 1024;
        InstanceBuffer { buffer: Self::alloc(device, label, capacity), capacity, label }
    }
    fn alloc(device: &wgpu::Device, label: &'static str, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (capacity * 32) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }
    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) {
        let n = bytes.len() / 32;
        if n > self.capacity {
            self.capacity = n.next_power_of_two();
            self.buffer = Self::alloc(device, self.label, self.capacity);
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
    }
}

pub struct Renderer {
    tier: Tier,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    rect_pipeline: wgpu::RenderPipeline,
    line_pipeline: wgpu::RenderPipeline,
    globals: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    rects: InstanceBuffer,
    lines: InstanceBuffer,
    dpr: f32,
    /// The particle view's pipelines and history, made on its first frame.
    particles: Option<ParticleRenderer>,
    /// Whether the adapter can accumulate the particle history (a blendable half-float target).
    particle_history: bool,
    /// Draw calls issued by the last frame (the benchmark's figure).
    pub draw_calls: u32,
}

fn color_f64(c: u32) -> wgpu::Color {
    let ch = |s: u32| ((c >> s) & 0xff) as f64 / 255.0;
    wgpu::Color { r: ch(24), g: ch(16), b: ch(8), a: ch(0) }
}

impl Renderer {
    /// Set up on a canvas. The WebGPU build asks for a WebGPU adapter; the webgl build for WebGL2.
    pub async fn new(canvas: web_sys::HtmlCanvasElement) -> Result<Renderer, String> {
        let tier = if cfg!(feature = "webgl") { Tier::WebGl2 } else { Tier::WebGpu };
        let backends = match tier {
            Tier::WebGpu => wgpu::Backends::BROWSER_WEBGPU,
            Tier::WebGl2 => wgpu::Backends::GL,
        };
        let width = canvas.width().max(1);
        let height = canvas.height().max(1);
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        desc.flags = wgpu::InstanceFlags::empty();
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| format!("cannot draw on the canvas with {}: {e}", tier.name()))?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: Some(&surface),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no {} adapter: {e}", tier.name()))?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("weft"),
                required_features: wgpu::Features::empty(),
                required_limits: tier.limits().using_resolution(adapter.limits()),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no {} device: {e}", tier.name()))?;
        let particle_history = ParticleRenderer::supported(&adapter);
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or("the canvas offers no texture format")?;
        let alpha_mode = if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
            wgpu::CompositeAlphaMode::Opaque
        } else {
            caps.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto)
        };
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width,
            height,
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode,
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&device, &config);

        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("shapes.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shapes.wgsl").into()),
        });
        let globals = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("globals"),
            contents: bytemuck::bytes_of(&Globals { size: [width as f32, height as f32], dpr: 1.0, _pad: 0.0 }),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: globals.as_entire_binding() }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("weft"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let blend = Some(wgpu::BlendState::ALPHA_BLENDING);
        let pipeline = |vs: &str, fs: &str, attrs: &[wgpu::VertexAttribute]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(vs),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: 32,
                        step_mode: wgpu::VertexStepMode::Instance,
                        attributes: attrs,
                    })],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::ALL })],
                }),
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                multiview_mask: None,
                cache: None,
            })
        };
        let rect_pipeline = pipeline(
            "rect_vs",
            "rect_fs",
            &wgpu::vertex_attr_array![0 => Float32x4, 1 => Unorm8x4, 2 => Unorm8x4, 3 => Float32, 4 => Uint32],
        );
        let line_pipeline = pipeline(
            "line_vs",
            "line_fs",
            &wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32, 2 => Unorm8x4, 3 => Float32, 4 => Float32],
        );
        let rects = InstanceBuffer::new(&device, "rects");
        let lines = InstanceBuffer::new(&device, "lines");
        Ok(Renderer {
            tier,
            surface,
            device,
            queue,
            config,
            rect_pipeline,
            line_pipeline,
            globals,
            bind_group,
            rects,
            lines,
            dpr: 1.0,
            particles: None,
            particle_history,
            draw_calls: 0,
        })
    }

    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The canvas's backing size in device pixels, and the device pixel ratio.
    pub fn resize(&mut self, width_px: u32, height_px: u32, dpr: f32) {
        let max = self.device.limits().max_texture_dimension_2d;
        self.config.width = width_px.clamp(1, max);
        self.config.height = height_px.clamp(1, max);
        self.dpr = dpr.max(0.25);
        self.surface.configure(&self.device, &self.config);
    }

    /// Draw one frame: rects then lines, one instanced draw call each.
    pub fn render(&mut self, scene: &Scene) -> Result<(), String> {
        self.render_with(scene, None)
    }

    /// Draw one frame with the particle view's layer: its splats into the history first, then the history,
    /// the scene's rects and lines, and the live particles on top (a constant number of draw calls).
    pub fn render_with(&mut self, scene: &Scene, layer: Option<&ParticleLayer>) -> Result<(), String> {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
            other => return Err(format!("no frame to draw into: {other:?}")),
        };
        let g = Globals { size: [scene.width.max(1.0), scene.height.max(1.0)], dpr: self.dpr, _pad: 0.0 };
        self.queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
        self.rects.upload(&self.device, &self.queue, bytemuck::cast_slice::<RectInstance, u8>(&scene.rects));
        self.lines.upload(&self.device, &self.queue, bytemuck::cast_slice::<LineInstance, u8>(&scene.lines));
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        let mut calls = 0;
        if let Some(layer) = layer {
            let format = self.config.format;
            let device = &self.device;
            let history = self.particle_history;
            let p = self.particles.get_or_insert_with(|| ParticleRenderer::new(device, format, history));
            let size = (scene.width, scene.height);
            calls += p.prepare(&self.device, &self.queue, &mut encoder, layer, size, self.dpr);
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    resolve_target: None,
                    depth_slice: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(color_f64(scene.background)),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let (Some(p), Some(_)) = (&self.particles, layer) {
                calls += p.draw_history(&mut pass);
            }
            pass.set_bind_group(0, &self.bind_group, &[]);
            if !scene.rects.is_empty() {
                pass.set_pipeline(&self.rect_pipeline);
                pass.set_vertex_buffer(0, self.rects.buffer.slice(..(scene.rects.len() * 32) as u64));
                pass.draw(0..6, 0..scene.rects.len() as u32);
                calls += 1;
            }
            if !scene.lines.is_empty() {
                pass.set_pipeline(&self.line_pipeline);
                pass.set_vertex_buffer(0, self.lines.buffer.slice(..(scene.lines.len() * 32) as u64));
                pass.draw(0..9, 0..scene.lines.len() as u32);
                calls += 1;
            }
            if let (Some(p), Some(layer)) = (&self.particles, layer) {
                calls += p.draw_particles(&mut pass, layer.particles.len());
            }
        }
        self.queue.submit(Some(encoder.finish()));
        self.queue.present(frame);
        self.draw_calls = calls;
        Ok(())
    }
}
