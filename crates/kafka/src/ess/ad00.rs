pub use root::*;

const _: () = ::planus::check_version_compatibility("planus-1.3.0");

/// The root namespace
///
/// Generated from these locations:
/// * File `schemas/ad00_area_detector_array.fbs`
#[no_implicit_prelude]
#[allow(clippy::needless_lifetimes)]
mod root {
    /// The enum `DType`
    ///
    /// Generated from these locations:
    /// * Enum `DType` in the file `schemas/ad00_area_detector_array.fbs:5`
    #[derive(
        Copy,
        Clone,
        Debug,
        PartialEq,
        Eq,
        PartialOrd,
        Ord,
        Hash,
        ::serde::Serialize,
        ::serde::Deserialize,
    )]
    #[repr(i8)]
    pub enum DType {
        /// The variant `int8` in the enum `DType`
        Int8 = 0,

        /// The variant `uint8` in the enum `DType`
        Uint8 = 1,

        /// The variant `int16` in the enum `DType`
        Int16 = 2,

        /// The variant `uint16` in the enum `DType`
        Uint16 = 3,

        /// The variant `int32` in the enum `DType`
        Int32 = 4,

        /// The variant `uint32` in the enum `DType`
        Uint32 = 5,

        /// The variant `int64` in the enum `DType`
        Int64 = 6,

        /// The variant `uint64` in the enum `DType`
        Uint64 = 7,

        /// The variant `float32` in the enum `DType`
        Float32 = 8,

        /// The variant `float64` in the enum `DType`
        Float64 = 9,

        /// The variant `c_string` in the enum `DType`
        CString = 10,
    }

    impl DType {
        /// Array containing all valid variants of DType
        pub const ENUM_VALUES: [Self; 11] = [
            Self::Int8,
            Self::Uint8,
            Self::Int16,
            Self::Uint16,
            Self::Int32,
            Self::Uint32,
            Self::Int64,
            Self::Uint64,
            Self::Float32,
            Self::Float64,
            Self::CString,
        ];
    }

    impl ::core::convert::TryFrom<i8> for DType {
        type Error = ::planus::errors::UnknownEnumTagKind;
        #[inline]
        fn try_from(
            value: i8,
        ) -> ::core::result::Result<Self, ::planus::errors::UnknownEnumTagKind> {
            #[allow(clippy::match_single_binding)]
            match value {
                0 => ::core::result::Result::Ok(DType::Int8),
                1 => ::core::result::Result::Ok(DType::Uint8),
                2 => ::core::result::Result::Ok(DType::Int16),
                3 => ::core::result::Result::Ok(DType::Uint16),
                4 => ::core::result::Result::Ok(DType::Int32),
                5 => ::core::result::Result::Ok(DType::Uint32),
                6 => ::core::result::Result::Ok(DType::Int64),
                7 => ::core::result::Result::Ok(DType::Uint64),
                8 => ::core::result::Result::Ok(DType::Float32),
                9 => ::core::result::Result::Ok(DType::Float64),
                10 => ::core::result::Result::Ok(DType::CString),

                _ => ::core::result::Result::Err(::planus::errors::UnknownEnumTagKind {
                    tag: value as i128,
                }),
            }
        }
    }

    impl ::core::convert::From<DType> for i8 {
        #[inline]
        fn from(value: DType) -> Self {
            value as i8
        }
    }

    /// # Safety
    /// The Planus compiler correctly calculates `ALIGNMENT` and `SIZE`.
    unsafe impl ::planus::Primitive for DType {
        const ALIGNMENT: usize = 1;
        const SIZE: usize = 1;
    }

    impl ::planus::WriteAsPrimitive<DType> for DType {
        #[inline]
        fn write<const N: usize>(&self, cursor: ::planus::Cursor<'_, N>, buffer_position: u32) {
            (*self as i8).write(cursor, buffer_position);
        }
    }

    impl ::planus::WriteAs<DType> for DType {
        type Prepared = Self;

        #[inline]
        fn prepare(&self, _builder: &mut ::planus::Builder) -> DType {
            *self
        }
    }

    impl ::planus::WriteAsDefault<DType, DType> for DType {
        type Prepared = Self;

        #[inline]
        fn prepare(
            &self,
            _builder: &mut ::planus::Builder,
            default: &DType,
        ) -> ::core::option::Option<DType> {
            if self == default {
                ::core::option::Option::None
            } else {
                ::core::option::Option::Some(*self)
            }
        }
    }

    impl ::planus::WriteAsOptional<DType> for DType {
        type Prepared = Self;

        #[inline]
        fn prepare(&self, _builder: &mut ::planus::Builder) -> ::core::option::Option<DType> {
            ::core::option::Option::Some(*self)
        }
    }

    impl<'buf> ::planus::TableRead<'buf> for DType {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'buf>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            let n: i8 = ::planus::TableRead::from_buffer(buffer, offset)?;
            ::core::result::Result::Ok(::core::convert::TryInto::try_into(n)?)
        }
    }

    impl<'buf> ::planus::VectorReadInner<'buf> for DType {
        type Error = ::planus::errors::UnknownEnumTag;
        const STRIDE: usize = 1;
        #[inline]
        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'buf>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::UnknownEnumTag> {
            let value = unsafe { *buffer.buffer.get_unchecked(offset) as i8 };
            let value: ::core::result::Result<Self, _> = ::core::convert::TryInto::try_into(value);
            value.map_err(|error_kind| {
                error_kind.with_error_location(
                    "DType",
                    "VectorRead::from_buffer",
                    buffer.offset_from_start,
                )
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<DType> for DType {
        const STRIDE: usize = 1;

        type Value = Self;

        #[inline]
        fn prepare(&self, _builder: &mut ::planus::Builder) -> Self {
            *self
        }

        #[inline]
        unsafe fn write_values(
            values: &[Self],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 1];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - i as u32,
                );
            }
        }
    }

    /// The table `Attribute`
    ///
    /// Generated from these locations:
    /// * Table `Attribute` in the file `schemas/ad00_area_detector_array.fbs:7`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Attribute {
        /// The field `name` in the table `Attribute`
        pub name: ::planus::alloc::string::String,
        /// The field `description` in the table `Attribute`
        pub description: ::core::option::Option<::planus::alloc::string::String>,
        /// The field `source` in the table `Attribute`
        pub source: ::core::option::Option<::planus::alloc::string::String>,
        /// The field `data_type` in the table `Attribute`
        pub data_type: self::DType,
        /// The field `data` in the table `Attribute`
        pub data: ::planus::alloc::vec::Vec<u8>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Attribute {
        fn default() -> Self {
            Self {
                name: ::core::default::Default::default(),
                description: ::core::default::Default::default(),
                source: ::core::default::Default::default(),
                data_type: self::DType::Int8,
                data: ::core::default::Default::default(),
            }
        }
    }

    impl Attribute {
        /// Creates a [AttributeBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> AttributeBuilder<()> {
            AttributeBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_name: impl ::planus::WriteAs<::planus::Offset<str>>,
            field_description: impl ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            field_source: impl ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            field_data_type: impl ::planus::WriteAsDefault<self::DType, self::DType>,
            field_data: impl ::planus::WriteAs<::planus::Offset<[u8]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_name = field_name.prepare(builder);
            let prepared_description = field_description.prepare(builder);
            let prepared_source = field_source.prepare(builder);
            let prepared_data_type = field_data_type.prepare(builder, &self::DType::Int8);
            let prepared_data = field_data.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<14> =
                ::core::default::Default::default();
            table_writer.write_entry::<::planus::Offset<str>>(0);
            if prepared_description.is_some() {
                table_writer.write_entry::<::planus::Offset<str>>(1);
            }
            if prepared_source.is_some() {
                table_writer.write_entry::<::planus::Offset<str>>(2);
            }
            table_writer.write_entry::<::planus::Offset<[u8]>>(4);
            if prepared_data_type.is_some() {
                table_writer.write_entry::<self::DType>(3);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    object_writer.write::<_, _, 4>(&prepared_name);
                    if let ::core::option::Option::Some(prepared_description) = prepared_description
                    {
                        object_writer.write::<_, _, 4>(&prepared_description);
                    }
                    if let ::core::option::Option::Some(prepared_source) = prepared_source {
                        object_writer.write::<_, _, 4>(&prepared_source);
                    }
                    object_writer.write::<_, _, 4>(&prepared_data);
                    if let ::core::option::Option::Some(prepared_data_type) = prepared_data_type {
                        object_writer.write::<_, _, 1>(&prepared_data_type);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Attribute>> for Attribute {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Attribute> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Attribute>> for Attribute {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Attribute>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Attribute> for Attribute {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Attribute> {
            Attribute::create(
                builder,
                &self.name,
                &self.description,
                &self.source,
                self.data_type,
                &self.data,
            )
        }
    }

    /// Builder for serializing an instance of the [Attribute] type.
    ///
    /// Can be created using the [Attribute::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct AttributeBuilder<State>(State);

    impl AttributeBuilder<()> {
        /// Setter for the [`name` field](Attribute#structfield.name).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn name<T0>(self, value: T0) -> AttributeBuilder<(T0,)>
        where
            T0: ::planus::WriteAs<::planus::Offset<str>>,
        {
            AttributeBuilder((value,))
        }
    }

    impl<T0> AttributeBuilder<(T0,)> {
        /// Setter for the [`description` field](Attribute#structfield.description).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn description<T1>(self, value: T1) -> AttributeBuilder<(T0, T1)>
        where
            T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
        {
            let (v0,) = self.0;
            AttributeBuilder((v0, value))
        }

        /// Sets the [`description` field](Attribute#structfield.description) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn description_as_null(self) -> AttributeBuilder<(T0, ())> {
            self.description(())
        }
    }

    impl<T0, T1> AttributeBuilder<(T0, T1)> {
        /// Setter for the [`source` field](Attribute#structfield.source).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn source<T2>(self, value: T2) -> AttributeBuilder<(T0, T1, T2)>
        where
            T2: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
        {
            let (v0, v1) = self.0;
            AttributeBuilder((v0, v1, value))
        }

        /// Sets the [`source` field](Attribute#structfield.source) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn source_as_null(self) -> AttributeBuilder<(T0, T1, ())> {
            self.source(())
        }
    }

    impl<T0, T1, T2> AttributeBuilder<(T0, T1, T2)> {
        /// Setter for the [`data_type` field](Attribute#structfield.data_type).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data_type<T3>(self, value: T3) -> AttributeBuilder<(T0, T1, T2, T3)>
        where
            T3: ::planus::WriteAsDefault<self::DType, self::DType>,
        {
            let (v0, v1, v2) = self.0;
            AttributeBuilder((v0, v1, v2, value))
        }

        /// Sets the [`data_type` field](Attribute#structfield.data_type) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data_type_as_default(
            self,
        ) -> AttributeBuilder<(T0, T1, T2, ::planus::DefaultValue)> {
            self.data_type(::planus::DefaultValue)
        }
    }

    impl<T0, T1, T2, T3> AttributeBuilder<(T0, T1, T2, T3)> {
        /// Setter for the [`data` field](Attribute#structfield.data).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data<T4>(self, value: T4) -> AttributeBuilder<(T0, T1, T2, T3, T4)>
        where
            T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
        {
            let (v0, v1, v2, v3) = self.0;
            AttributeBuilder((v0, v1, v2, v3, value))
        }
    }

    impl<T0, T1, T2, T3, T4> AttributeBuilder<(T0, T1, T2, T3, T4)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Attribute].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Attribute>
        where
            Self: ::planus::WriteAsOffset<Attribute>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T2: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T3: ::planus::WriteAsDefault<self::DType, self::DType>,
            T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
        > ::planus::WriteAs<::planus::Offset<Attribute>>
        for AttributeBuilder<(T0, T1, T2, T3, T4)>
    {
        type Prepared = ::planus::Offset<Attribute>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Attribute> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T2: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T3: ::planus::WriteAsDefault<self::DType, self::DType>,
            T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
        > ::planus::WriteAsOptional<::planus::Offset<Attribute>>
        for AttributeBuilder<(T0, T1, T2, T3, T4)>
    {
        type Prepared = ::planus::Offset<Attribute>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Attribute>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T2: ::planus::WriteAsOptional<::planus::Offset<::core::primitive::str>>,
            T3: ::planus::WriteAsDefault<self::DType, self::DType>,
            T4: ::planus::WriteAs<::planus::Offset<[u8]>>,
        > ::planus::WriteAsOffset<Attribute> for AttributeBuilder<(T0, T1, T2, T3, T4)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Attribute> {
            let (v0, v1, v2, v3, v4) = &self.0;
            Attribute::create(builder, v0, v1, v2, v3, v4)
        }
    }

    /// Reference to a deserialized [Attribute].
    #[derive(Copy, Clone)]
    pub struct AttributeRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> AttributeRef<'a> {
        /// Getter for the [`name` field](Attribute#structfield.name).
        #[inline]
        pub fn name(&self) -> ::planus::Result<&'a ::core::primitive::str> {
            self.0.access_required(0, "Attribute", "name")
        }

        /// Getter for the [`description` field](Attribute#structfield.description).
        #[inline]
        pub fn description(
            &self,
        ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
            self.0.access(1, "Attribute", "description")
        }

        /// Getter for the [`source` field](Attribute#structfield.source).
        #[inline]
        pub fn source(
            &self,
        ) -> ::planus::Result<::core::option::Option<&'a ::core::primitive::str>> {
            self.0.access(2, "Attribute", "source")
        }

        /// Getter for the [`data_type` field](Attribute#structfield.data_type).
        #[inline]
        pub fn data_type(&self) -> ::planus::Result<self::DType> {
            ::core::result::Result::Ok(
                self.0
                    .access(3, "Attribute", "data_type")?
                    .unwrap_or(self::DType::Int8),
            )
        }

        /// Getter for the [`data` field](Attribute#structfield.data).
        #[inline]
        pub fn data(&self) -> ::planus::Result<&'a [u8]> {
            self.0.access_required(4, "Attribute", "data")
        }
    }

    impl<'a> ::core::fmt::Debug for AttributeRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("AttributeRef");
            f.field("name", &self.name());
            if let ::core::option::Option::Some(field_description) = self.description().transpose()
            {
                f.field("description", &field_description);
            }
            if let ::core::option::Option::Some(field_source) = self.source().transpose() {
                f.field("source", &field_source);
            }
            f.field("data_type", &self.data_type());
            f.field("data", &self.data());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<AttributeRef<'a>> for Attribute {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: AttributeRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                name: ::core::convert::Into::into(value.name()?),
                description: value.description()?.map(::core::convert::Into::into),
                source: value.source()?.map(::core::convert::Into::into),
                data_type: ::core::convert::TryInto::try_into(value.data_type()?)?,
                data: value.data()?.to_vec(),
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for AttributeRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for AttributeRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[AttributeRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Attribute>> for Attribute {
        type Value = ::planus::Offset<Attribute>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Attribute>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for AttributeRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[AttributeRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ad00_ADArray`
    ///
    /// Generated from these locations:
    /// * Table `ad00_ADArray` in the file `schemas/ad00_area_detector_array.fbs:15`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Ad00AdArray {
        /// The field `source_name` in the table `ad00_ADArray`
        pub source_name: ::planus::alloc::string::String,
        /// The field `id` in the table `ad00_ADArray`
        pub id: i32,
        /// The field `timestamp` in the table `ad00_ADArray`
        pub timestamp: i64,
        /// The field `dimensions` in the table `ad00_ADArray`
        pub dimensions: ::planus::alloc::vec::Vec<i64>,
        /// The field `data_type` in the table `ad00_ADArray`
        pub data_type: self::DType,
        /// The field `data` in the table `ad00_ADArray`
        pub data: ::planus::alloc::vec::Vec<u8>,
        /// The field `attributes` in the table `ad00_ADArray`
        pub attributes: ::core::option::Option<::planus::alloc::vec::Vec<self::Attribute>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Ad00AdArray {
        fn default() -> Self {
            Self {
                source_name: ::core::default::Default::default(),
                id: 0,
                timestamp: 0,
                dimensions: ::core::default::Default::default(),
                data_type: self::DType::Int8,
                data: ::core::default::Default::default(),
                attributes: ::core::default::Default::default(),
            }
        }
    }

    impl Ad00AdArray {
        /// Creates a [Ad00AdArrayBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> Ad00AdArrayBuilder<()> {
            Ad00AdArrayBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_source_name: impl ::planus::WriteAs<::planus::Offset<str>>,
            field_id: impl ::planus::WriteAsDefault<i32, i32>,
            field_timestamp: impl ::planus::WriteAsDefault<i64, i64>,
            field_dimensions: impl ::planus::WriteAs<::planus::Offset<[i64]>>,
            field_data_type: impl ::planus::WriteAsDefault<self::DType, self::DType>,
            field_data: impl ::planus::WriteAs<::planus::Offset<[u8]>>,
            field_attributes: impl ::planus::WriteAsOptional<
                ::planus::Offset<[::planus::Offset<self::Attribute>]>,
            >,
        ) -> ::planus::Offset<Self> {
            let prepared_source_name = field_source_name.prepare(builder);
            let prepared_id = field_id.prepare(builder, &0);
            let prepared_timestamp = field_timestamp.prepare(builder, &0);
            let prepared_dimensions = field_dimensions.prepare(builder);
            let prepared_data_type = field_data_type.prepare(builder, &self::DType::Int8);
            let prepared_data = field_data.prepare(builder);
            let prepared_attributes = field_attributes.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<18> =
                ::core::default::Default::default();
            if prepared_timestamp.is_some() {
                table_writer.write_entry::<i64>(2);
            }
            table_writer.write_entry::<::planus::Offset<str>>(0);
            if prepared_id.is_some() {
                table_writer.write_entry::<i32>(1);
            }
            table_writer.write_entry::<::planus::Offset<[i64]>>(3);
            table_writer.write_entry::<::planus::Offset<[u8]>>(5);
            if prepared_attributes.is_some() {
                table_writer
                    .write_entry::<::planus::Offset<[::planus::Offset<self::Attribute>]>>(6);
            }
            if prepared_data_type.is_some() {
                table_writer.write_entry::<self::DType>(4);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_timestamp) = prepared_timestamp {
                        object_writer.write::<_, _, 8>(&prepared_timestamp);
                    }
                    object_writer.write::<_, _, 4>(&prepared_source_name);
                    if let ::core::option::Option::Some(prepared_id) = prepared_id {
                        object_writer.write::<_, _, 4>(&prepared_id);
                    }
                    object_writer.write::<_, _, 4>(&prepared_dimensions);
                    object_writer.write::<_, _, 4>(&prepared_data);
                    if let ::core::option::Option::Some(prepared_attributes) = prepared_attributes {
                        object_writer.write::<_, _, 4>(&prepared_attributes);
                    }
                    if let ::core::option::Option::Some(prepared_data_type) = prepared_data_type {
                        object_writer.write::<_, _, 1>(&prepared_data_type);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Ad00AdArray>> for Ad00AdArray {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Ad00AdArray> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Ad00AdArray>> for Ad00AdArray {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Ad00AdArray>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Ad00AdArray> for Ad00AdArray {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Ad00AdArray> {
            Ad00AdArray::create(
                builder,
                &self.source_name,
                self.id,
                self.timestamp,
                &self.dimensions,
                self.data_type,
                &self.data,
                &self.attributes,
            )
        }
    }

    /// Builder for serializing an instance of the [Ad00AdArray] type.
    ///
    /// Can be created using the [Ad00AdArray::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct Ad00AdArrayBuilder<State>(State);

    impl Ad00AdArrayBuilder<()> {
        /// Setter for the [`source_name` field](Ad00AdArray#structfield.source_name).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn source_name<T0>(self, value: T0) -> Ad00AdArrayBuilder<(T0,)>
        where
            T0: ::planus::WriteAs<::planus::Offset<str>>,
        {
            Ad00AdArrayBuilder((value,))
        }
    }

    impl<T0> Ad00AdArrayBuilder<(T0,)> {
        /// Setter for the [`id` field](Ad00AdArray#structfield.id).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn id<T1>(self, value: T1) -> Ad00AdArrayBuilder<(T0, T1)>
        where
            T1: ::planus::WriteAsDefault<i32, i32>,
        {
            let (v0,) = self.0;
            Ad00AdArrayBuilder((v0, value))
        }

        /// Sets the [`id` field](Ad00AdArray#structfield.id) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn id_as_default(self) -> Ad00AdArrayBuilder<(T0, ::planus::DefaultValue)> {
            self.id(::planus::DefaultValue)
        }
    }

    impl<T0, T1> Ad00AdArrayBuilder<(T0, T1)> {
        /// Setter for the [`timestamp` field](Ad00AdArray#structfield.timestamp).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn timestamp<T2>(self, value: T2) -> Ad00AdArrayBuilder<(T0, T1, T2)>
        where
            T2: ::planus::WriteAsDefault<i64, i64>,
        {
            let (v0, v1) = self.0;
            Ad00AdArrayBuilder((v0, v1, value))
        }

        /// Sets the [`timestamp` field](Ad00AdArray#structfield.timestamp) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn timestamp_as_default(self) -> Ad00AdArrayBuilder<(T0, T1, ::planus::DefaultValue)> {
            self.timestamp(::planus::DefaultValue)
        }
    }

    impl<T0, T1, T2> Ad00AdArrayBuilder<(T0, T1, T2)> {
        /// Setter for the [`dimensions` field](Ad00AdArray#structfield.dimensions).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn dimensions<T3>(self, value: T3) -> Ad00AdArrayBuilder<(T0, T1, T2, T3)>
        where
            T3: ::planus::WriteAs<::planus::Offset<[i64]>>,
        {
            let (v0, v1, v2) = self.0;
            Ad00AdArrayBuilder((v0, v1, v2, value))
        }
    }

    impl<T0, T1, T2, T3> Ad00AdArrayBuilder<(T0, T1, T2, T3)> {
        /// Setter for the [`data_type` field](Ad00AdArray#structfield.data_type).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data_type<T4>(self, value: T4) -> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4)>
        where
            T4: ::planus::WriteAsDefault<self::DType, self::DType>,
        {
            let (v0, v1, v2, v3) = self.0;
            Ad00AdArrayBuilder((v0, v1, v2, v3, value))
        }

        /// Sets the [`data_type` field](Ad00AdArray#structfield.data_type) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data_type_as_default(
            self,
        ) -> Ad00AdArrayBuilder<(T0, T1, T2, T3, ::planus::DefaultValue)> {
            self.data_type(::planus::DefaultValue)
        }
    }

    impl<T0, T1, T2, T3, T4> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4)> {
        /// Setter for the [`data` field](Ad00AdArray#structfield.data).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn data<T5>(self, value: T5) -> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5)>
        where
            T5: ::planus::WriteAs<::planus::Offset<[u8]>>,
        {
            let (v0, v1, v2, v3, v4) = self.0;
            Ad00AdArrayBuilder((v0, v1, v2, v3, v4, value))
        }
    }

    impl<T0, T1, T2, T3, T4, T5> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5)> {
        /// Setter for the [`attributes` field](Ad00AdArray#structfield.attributes).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn attributes<T6>(self, value: T6) -> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, T6)>
        where
            T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Attribute>]>>,
        {
            let (v0, v1, v2, v3, v4, v5) = self.0;
            Ad00AdArrayBuilder((v0, v1, v2, v3, v4, v5, value))
        }

        /// Sets the [`attributes` field](Ad00AdArray#structfield.attributes) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn attributes_as_null(self) -> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, ())> {
            self.attributes(())
        }
    }

    impl<T0, T1, T2, T3, T4, T5, T6> Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, T6)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Ad00AdArray].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Ad00AdArray>
        where
            Self: ::planus::WriteAsOffset<Ad00AdArray>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i32, i32>,
            T2: ::planus::WriteAsDefault<i64, i64>,
            T3: ::planus::WriteAs<::planus::Offset<[i64]>>,
            T4: ::planus::WriteAsDefault<self::DType, self::DType>,
            T5: ::planus::WriteAs<::planus::Offset<[u8]>>,
            T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Attribute>]>>,
        > ::planus::WriteAs<::planus::Offset<Ad00AdArray>>
        for Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, T6)>
    {
        type Prepared = ::planus::Offset<Ad00AdArray>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Ad00AdArray> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i32, i32>,
            T2: ::planus::WriteAsDefault<i64, i64>,
            T3: ::planus::WriteAs<::planus::Offset<[i64]>>,
            T4: ::planus::WriteAsDefault<self::DType, self::DType>,
            T5: ::planus::WriteAs<::planus::Offset<[u8]>>,
            T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Attribute>]>>,
        > ::planus::WriteAsOptional<::planus::Offset<Ad00AdArray>>
        for Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, T6)>
    {
        type Prepared = ::planus::Offset<Ad00AdArray>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Ad00AdArray>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i32, i32>,
            T2: ::planus::WriteAsDefault<i64, i64>,
            T3: ::planus::WriteAs<::planus::Offset<[i64]>>,
            T4: ::planus::WriteAsDefault<self::DType, self::DType>,
            T5: ::planus::WriteAs<::planus::Offset<[u8]>>,
            T6: ::planus::WriteAsOptional<::planus::Offset<[::planus::Offset<self::Attribute>]>>,
        > ::planus::WriteAsOffset<Ad00AdArray>
        for Ad00AdArrayBuilder<(T0, T1, T2, T3, T4, T5, T6)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Ad00AdArray> {
            let (v0, v1, v2, v3, v4, v5, v6) = &self.0;
            Ad00AdArray::create(builder, v0, v1, v2, v3, v4, v5, v6)
        }
    }

    /// Reference to a deserialized [Ad00AdArray].
    #[derive(Copy, Clone)]
    pub struct Ad00AdArrayRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> Ad00AdArrayRef<'a> {
        /// Getter for the [`source_name` field](Ad00AdArray#structfield.source_name).
        #[inline]
        pub fn source_name(&self) -> ::planus::Result<&'a ::core::primitive::str> {
            self.0.access_required(0, "Ad00AdArray", "source_name")
        }

        /// Getter for the [`id` field](Ad00AdArray#structfield.id).
        #[inline]
        pub fn id(&self) -> ::planus::Result<i32> {
            ::core::result::Result::Ok(self.0.access(1, "Ad00AdArray", "id")?.unwrap_or(0))
        }

        /// Getter for the [`timestamp` field](Ad00AdArray#structfield.timestamp).
        #[inline]
        pub fn timestamp(&self) -> ::planus::Result<i64> {
            ::core::result::Result::Ok(self.0.access(2, "Ad00AdArray", "timestamp")?.unwrap_or(0))
        }

        /// Getter for the [`dimensions` field](Ad00AdArray#structfield.dimensions).
        #[inline]
        pub fn dimensions(&self) -> ::planus::Result<::planus::Vector<'a, i64>> {
            self.0.access_required(3, "Ad00AdArray", "dimensions")
        }

        /// Getter for the [`data_type` field](Ad00AdArray#structfield.data_type).
        #[inline]
        pub fn data_type(&self) -> ::planus::Result<self::DType> {
            ::core::result::Result::Ok(
                self.0
                    .access(4, "Ad00AdArray", "data_type")?
                    .unwrap_or(self::DType::Int8),
            )
        }

        /// Getter for the [`data` field](Ad00AdArray#structfield.data).
        #[inline]
        pub fn data(&self) -> ::planus::Result<&'a [u8]> {
            self.0.access_required(5, "Ad00AdArray", "data")
        }

        /// Getter for the [`attributes` field](Ad00AdArray#structfield.attributes).
        #[inline]
        pub fn attributes(
            &self,
        ) -> ::planus::Result<
            ::core::option::Option<::planus::Vector<'a, ::planus::Result<self::AttributeRef<'a>>>>,
        > {
            self.0.access(6, "Ad00AdArray", "attributes")
        }
    }

    impl<'a> ::core::fmt::Debug for Ad00AdArrayRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("Ad00AdArrayRef");
            f.field("source_name", &self.source_name());
            f.field("id", &self.id());
            f.field("timestamp", &self.timestamp());
            f.field("dimensions", &self.dimensions());
            f.field("data_type", &self.data_type());
            f.field("data", &self.data());
            if let ::core::option::Option::Some(field_attributes) = self.attributes().transpose() {
                f.field("attributes", &field_attributes);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<Ad00AdArrayRef<'a>> for Ad00AdArray {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: Ad00AdArrayRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                source_name: ::core::convert::Into::into(value.source_name()?),
                id: ::core::convert::TryInto::try_into(value.id()?)?,
                timestamp: ::core::convert::TryInto::try_into(value.timestamp()?)?,
                dimensions: value.dimensions()?.to_vec()?,
                data_type: ::core::convert::TryInto::try_into(value.data_type()?)?,
                data: value.data()?.to_vec(),
                attributes: if let ::core::option::Option::Some(attributes) = value.attributes()? {
                    ::core::option::Option::Some(attributes.to_vec_result()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for Ad00AdArrayRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for Ad00AdArrayRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[Ad00AdArrayRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Ad00AdArray>> for Ad00AdArray {
        type Value = ::planus::Offset<Ad00AdArray>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Ad00AdArray>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for Ad00AdArrayRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[Ad00AdArrayRef]", "read_as_root", 0)
            })
        }
    }
}
