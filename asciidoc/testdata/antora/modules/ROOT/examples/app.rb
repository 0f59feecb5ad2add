# tag::setup[]
require 'demo'
# end::setup[]
# tag::run[]
Demo.run
# end::run[]
puts 'done'
